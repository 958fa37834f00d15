//! What `torus run` and `torus sweep` print: a record of named fields in one documented order
//! (the scenario and its rates, the run's lengths, latency, throughput, the run's state, then
//! the details), as a JSON line or a CSV row, every field or the ones chosen with `--fields`.
//! `docs/output.md` defines every field.

use crate::scenario::Scenario;
use serde::Serialize;
use serde_json::{Map, Value};

/// The tool's version, printed in every record as `version`.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Field names in the order records print them, group by group; the objects inside a record
/// (`across_seeds`, each replication) follow it too. A field not listed (one added to a
/// report later) comes after these, in alphabetical order, until it is given its place here.
pub const FIELD_ORDER: &[&str] = &[
    // The scenario and its numbers.
    "scenario",
    "version",
    "rate",
    "frate",
    "replication",
    "seed",
    // The run's lengths.
    "warmup_cycles",
    "warmup_stop",
    "window_cycles",
    "window_stop",
    "cycles",
    "wall_seconds",
    // Latency.
    "latency_mean",
    "latency_ci95",
    "latency_ci95_batches",
    "latency_ci95_batch_cycles",
    "latency_ci95_lag1",
    "latency_ci95_widened",
    "network_latency_mean",
    "source_queue_mean",
    "hops_mean",
    "model_latency",
    "channel_queue_latency",
    // Throughput.
    "offered_flits_per_node_cycle",
    "accepted_flits_per_node_cycle",
    "accepted_min_pair",
    "accepted_min_source",
    "messages_measured",
    "messages_labelled",
    "delivered_fraction",
    // The run's state.
    "saturated",
    "saturation_reason",
    "throttled",
    "throttled_source_cycles",
    "source_queue_cap",
    "deadlock",
    "fault_stall",
    // Details: the quantities the models use, events, and the lists.
    "multiplexing_degree",
    "blocking_probability",
    "mean_wait_when_blocked",
    "flit_hops",
    "backtracks",
    "backtracks_per_message",
    "misroutes",
    "misroutes_per_message",
    "broadcasts_labelled",
    "broadcasts_measured",
    "broadcast_completion_mean",
    "messages_unreachable",
    "messages_stuck_at_faults",
    "busy_vc_probability",
    "blocking_per_hop",
    "latency_histogram",
    "start",
    "width",
    "counts",
    "channel_utilisation",
    "deadlock_vcs",
    "deadlock_channels",
    "stuck_at",
    // Replications (`--seeds`).
    "seeds",
    "saturated_replications",
    "across_seeds",
    "mean",
    "ci95",
    "sd",
    "n",
    "replications",
    // Per node and per pair (`--detail`).
    "node_latency_mean",
    "node_messages_measured",
    "node_offered_flits_per_cycle",
    "node_accepted_flits_per_cycle",
    "pair_accepted_flits_per_cycle",
];

/// One printed record: fields in [`FIELD_ORDER`], recursively.
#[derive(Clone, Debug, PartialEq)]
pub struct Record(Vec<(String, Value)>);

impl Record {
    /// The record of a run (a run report, a replicated one or a sweep point, as JSON), with
    /// the tool's version and the scenario's offered load in both units: `rate`
    /// (messages/node/cycle) and `frate` (flits/node/cycle).
    pub fn of_run(report: &impl Serialize, s: &Scenario) -> Record {
        let mut record = Record::of(serde_json::to_value(report).expect("reports serialise"));
        record.set("version", VERSION.into());
        record.set("rate", s.rate.into());
        record.set("frate", significant(s.offered_flits(), 12).into());
        record
    }

    /// `value`'s fields in [`FIELD_ORDER`] (a value that is not an object: no fields).
    pub fn of(value: Value) -> Record {
        let Value::Object(map) = value else { return Record(Vec::new()) };
        let mut fields: Vec<(String, Value)> = map.into_iter().collect();
        fields.sort_by_key(|(n, _)| rank(n));
        Record(fields)
    }

    /// Adds every field of `fields` (an object: `--detail`'s figures), or replaces it.
    pub fn extend(&mut self, fields: &impl Serialize) {
        if let Value::Object(map) = serde_json::to_value(fields).expect("reports serialise") {
            for (name, value) in map {
                self.set(&name, value);
            }
        }
    }

    /// Sets a field, in its place in [`FIELD_ORDER`].
    pub fn set(&mut self, name: &str, value: Value) {
        match self.0.iter_mut().find(|(n, _)| n == name) {
            Some(field) => field.1 = value,
            None => {
                self.0.push((name.to_string(), value));
                self.0.sort_by_key(|(n, _)| rank(n));
            }
        }
    }

    pub fn get(&self, name: &str) -> Option<&Value> {
        self.0.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }

    /// The value at a dotted path (`across_seeds.latency_mean.mean`), `None` where there is none.
    pub fn at(&self, path: &str) -> Option<&Value> {
        let mut parts = path.split('.');
        let mut value = self.get(parts.next()?)?;
        for part in parts {
            value = value.get(part)?;
        }
        Some(value)
    }

    /// The record as one line of JSON, its fields in order.
    pub fn json(&self) -> String {
        json_object(self.0.iter().map(|(n, v)| (n.as_str(), v)))
    }

    /// The paths of every value a CSV cell can hold: each field that is a number, a word, true
    /// or false or null, and those inside objects as dotted paths; lists are left out.
    fn csv_columns(&self) -> Vec<String> {
        fn leaves(prefix: &str, value: &Value, out: &mut Vec<String>) {
            match value {
                Value::Array(_) => {}
                Value::Object(map) => sorted(map).into_iter().for_each(|(name, v)| leaves(&format!("{prefix}.{name}"), v, out)),
                _ => out.push(prefix.to_string()),
            }
        }
        let mut out = Vec::new();
        for (name, value) in &self.0 {
            leaves(name, value, &mut out);
        }
        out
    }
}

/// `x` to `digits` significant digits: λ·M without the noise of the product (0.3, not
/// 0.30000000000000004).
fn significant(x: f64, digits: usize) -> f64 {
    format!("{x:.*e}", digits - 1).parse().expect("a formatted number parses")
}

/// Where a field name sorts: its place in [`FIELD_ORDER`], fields not there after all of them.
fn rank(name: &str) -> (usize, String) {
    match FIELD_ORDER.iter().position(|f| *f == name) {
        Some(i) => (i, String::new()),
        None => (FIELD_ORDER.len(), name.to_string()),
    }
}

/// The fields of a JSON object in [`FIELD_ORDER`] (a `serde_json` map keeps them in
/// alphabetical order: the order lives in the [`Record`] and in what prints it).
fn sorted(map: &Map<String, Value>) -> Vec<(&str, &Value)> {
    let mut fields: Vec<(&str, &Value)> = map.iter().map(|(n, v)| (n.as_str(), v)).collect();
    fields.sort_by_key(|(n, _)| rank(n));
    fields
}

/// JSON text of a value, every object's fields in [`FIELD_ORDER`].
fn json_text(value: &Value) -> String {
    match value {
        Value::Object(map) => json_object(sorted(map).into_iter()),
        Value::Array(items) => format!("[{}]", items.iter().map(json_text).collect::<Vec<_>>().join(",")),
        scalar => scalar.to_string(),
    }
}

fn json_object<'a>(fields: impl Iterator<Item = (&'a str, &'a Value)>) -> String {
    let mut fields: Vec<(&str, &Value)> = fields.collect();
    fields.sort_by_key(|(n, _)| rank(n));
    let body: Vec<String> = fields.iter().map(|(n, v)| format!("{}:{}", Value::from(*n), json_text(v))).collect();
    format!("{{{}}}", body.join(","))
}

/// How records are printed: JSON lines or CSV, every field or the ones chosen.
#[derive(Clone, Debug, Default)]
pub struct Format {
    pub csv: bool,
    /// `--fields a,b,c`: these fields (dotted paths reach into objects), in this order.
    pub fields: Option<Vec<String>>,
}

impl Format {
    /// The format of `--csv` (when `csv`) and `--fields LIST` (when given): every name in the
    /// list must be a field of [`FIELD_ORDER`] or a path into one.
    pub fn new(csv: bool, fields: Option<&str>) -> Result<Format, String> {
        let fields = match fields {
            None => None,
            Some(list) => {
                let names: Vec<String> = list.split(',').map(|f| f.trim().to_string()).collect();
                if let Some(bad) = names.iter().find(|n| !FIELD_ORDER.contains(&n.split('.').next().unwrap_or_default())) {
                    return Err(format!("--fields: no field `{bad}`; docs/output.md lists the fields, `torus help run` the common ones"));
                }
                Some(names)
            }
        };
        Ok(Format { csv, fields })
    }
}

/// Prints records one after another: the CSV header before the first row, every row with the
/// first one's columns.
#[derive(Debug)]
pub struct Printer {
    format: Format,
    columns: Option<Vec<String>>,
}

impl Printer {
    pub fn new(format: Format) -> Printer {
        Printer { format, columns: None }
    }

    /// The lines to print for `record`: a JSON line, or a CSV row after the header the first
    /// time. A chosen field that a CSV cell cannot hold (a list, an object) is an error.
    pub fn lines(&mut self, record: &Record) -> Result<Vec<String>, String> {
        if !self.format.csv {
            return Ok(vec![match &self.format.fields {
                None => record.json(),
                Some(fields) => {
                    let chosen: Vec<(&str, Value)> =
                        fields.iter().map(|f| (f.as_str(), record.at(f).cloned().unwrap_or(Value::Null))).collect();
                    // In the order chosen, which is the point of choosing.
                    let body: Vec<String> = chosen.iter().map(|(n, v)| format!("{}:{}", Value::from(*n), json_text(v))).collect();
                    format!("{{{}}}", body.join(","))
                }
            }]);
        }
        let mut lines = Vec::new();
        if self.columns.is_none() {
            let columns = self.format.fields.clone().unwrap_or_else(|| record.csv_columns());
            lines.push(columns.iter().map(|c| csv_cell(&Value::from(c.as_str()))).collect::<Vec<_>>().join(","));
            self.columns = Some(columns);
        }
        let columns = self.columns.as_ref().expect("set above");
        let mut cells = Vec::with_capacity(columns.len());
        for column in columns {
            let value = record.at(column).unwrap_or(&Value::Null);
            if value.is_array() || value.is_object() {
                return Err(format!(
                    "--fields: `{column}` is a {}, and a CSV cell holds one value: print it as JSON (without --csv)",
                    if value.is_array() { "list" } else { "group of fields" }
                ));
            }
            cells.push(csv_cell(value));
        }
        lines.push(cells.join(","));
        Ok(lines)
    }
}

/// A CSV cell (RFC 4180): numbers as JSON writes them, so that the two agree digit for digit;
/// null empty; a word quoted when it holds a comma, a quote or a line break.
fn csv_cell(value: &Value) -> String {
    match value {
        Value::Null => String::new(),
        Value::String(s) if s.contains([',', '"', '\n', '\r']) => format!("\"{}\"", s.replace('"', "\"\"")),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn record() -> Record {
        let s = Scenario::parse("k=4&len=4&rate=0.035").unwrap();
        Record::of_run(
            &json!({
                "zeta_added_later": 1,
                "latency_mean": 12.5,
                "saturation_reason": "a, \"b\"",
                "scenario": s.canonical(),
                "channel_utilisation": [0.1, 0.2],
                "across_seeds": {"latency_mean": {"sd": 1.0, "mean": 12.0, "n": 2, "ci95": 0.5}},
                "saturated": false,
            }),
            &s,
        )
    }

    #[test]
    fn fields_come_in_the_documented_order_with_unknown_ones_last() {
        let first = record();
        let names: Vec<&str> = first.0.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "scenario", "version", "rate", "frate", "latency_mean", "saturated", "saturation_reason", "channel_utilisation",
                "across_seeds", "zeta_added_later"
            ]
        );
        let line = record().json();
        assert!(line.starts_with(r#"{"scenario":"k=4&n=2&"#), "{line}");
        assert!(line.contains(r#","rate":0.035,"frate":0.14,"latency_mean":12.5,"#), "{line}");
        assert!(line.contains(r#""across_seeds":{"latency_mean":{"mean":12.0,"ci95":0.5,"sd":1.0,"n":2}}"#), "{line}");
        // The line is JSON that reads back to the same values.
        let back: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(back["saturation_reason"], "a, \"b\"");
        assert_eq!(back["version"], VERSION);
    }

    #[test]
    fn frate_is_rate_times_the_mean_length_without_noise() {
        let s = Scenario::parse("rate=0.1&len=3").unwrap();
        assert_ne!(0.1 * 3.0, 0.3, "the product is noisy");
        assert_eq!(Record::of_run(&json!({}), &s).get("frate"), Some(&json!(0.3)));
    }

    #[test]
    fn csv_has_one_header_and_the_numbers_json_has() {
        let mut printer = Printer::new(Format::new(true, None).unwrap());
        let lines = printer.lines(&record()).unwrap();
        assert_eq!(lines.len(), 2);
        assert_eq!(
            lines[0],
            "scenario,version,rate,frate,latency_mean,saturated,saturation_reason,across_seeds.latency_mean.mean,\
             across_seeds.latency_mean.ci95,across_seeds.latency_mean.sd,across_seeds.latency_mean.n,zeta_added_later"
        );
        assert!(lines[1].ends_with(r#",0.035,0.14,12.5,false,"a, ""b""",12.0,0.5,1.0,2,1"#), "{}", lines[1]);
        // The next record: a row, no header.
        assert_eq!(printer.lines(&record()).unwrap().len(), 1);
    }

    #[test]
    fn chosen_fields_in_the_order_chosen() {
        let mut csv = Printer::new(Format::new(true, Some("latency_mean,rate,across_seeds.latency_mean.ci95,frate")).unwrap());
        assert_eq!(csv.lines(&record()).unwrap(), ["latency_mean,rate,across_seeds.latency_mean.ci95,frate", "12.5,0.035,0.5,0.14"]);
        let mut json = Printer::new(Format::new(false, Some("latency_mean,rate,channel_utilisation,messages_measured")).unwrap());
        assert_eq!(
            json.lines(&record()).unwrap(),
            [r#"{"latency_mean":12.5,"rate":0.035,"channel_utilisation":[0.1,0.2],"messages_measured":null}"#]
        );
        // A list has no CSV cell; a name that is no field is refused before anything runs.
        let mut csv = Printer::new(Format::new(true, Some("channel_utilisation")).unwrap());
        assert!(csv.lines(&record()).unwrap_err().contains("is a list"));
        let err = Format::new(false, Some("latency_mean,latency")).unwrap_err();
        assert!(err.contains("no field `latency`"), "{err}");
    }
}
