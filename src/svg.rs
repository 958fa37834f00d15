//! Minimal SVG plots for the reports (validation, benchmark scaling): straight-line curves,
//! markers with error bars, and labelled vertical lines on linear axes that start at zero. Written by hand so that the
//! crate needs no plotting dependency and the files stay small, diffable text.

use std::fmt::Write;

const WIDTH: f64 = 640.0;
const HEIGHT: f64 = 420.0;
const LEFT: f64 = 72.0;
const RIGHT: f64 = 20.0;
const TOP: f64 = 36.0;
const BOTTOM: f64 = 52.0;
/// Curve colours, in series order; markers are drawn in black and vertical lines in grey.
const LINE_COLOURS: &[&str] = &["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf"];
const MARKER_COLOURS: &[&str] = &["#000000", "#ff7f0e", "#8c564b"];

/// A polyline through `points` (x, y), in data units.
#[derive(Clone, Debug, PartialEq)]
pub struct Curve {
    pub label: String,
    pub points: Vec<(f64, f64)>,
    pub dashed: bool,
}

/// One measured point; `error` is the half-width of its error bar (0 for none).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Marker {
    pub x: f64,
    pub y: f64,
    pub error: f64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct MarkerSeries {
    pub label: String,
    pub markers: Vec<Marker>,
}

/// A vertical line across the plot at `x`, labelled at its top.
#[derive(Clone, Debug, PartialEq)]
pub struct VerticalLine {
    pub label: String,
    pub x: f64,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Plot {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub curves: Vec<Curve>,
    pub markers: Vec<MarkerSeries>,
    pub vertical_lines: Vec<VerticalLine>,
    /// Right end of the x axis; `None` fits every curve, marker and vertical line.
    pub x_max: Option<f64>,
    /// Top of the y axis; `None` fits everything. A marker above it is drawn as a hollow
    /// triangle on the top edge (a saturated run whose latency is off the scale).
    pub y_max: Option<f64>,
    /// Bottom of the y axis, rounded down to a tick; `None` starts at zero. Latency never falls
    /// below its zero-load value, so starting there shows the rise instead of empty space.
    pub y_min: Option<f64>,
}

/// Escapes the characters that are special in XML text and attribute values.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// A tick spacing of 1, 2 or 5 times a power of ten giving about `target` intervals.
fn tick_step(max: f64, target: f64) -> f64 {
    let raw = max / target;
    let magnitude = 10f64.powf(raw.log10().floor());
    let normalised = raw / magnitude;
    let factor = if normalised < 1.5 {
        1.0
    } else if normalised < 3.0 {
        2.0
    } else if normalised < 7.0 {
        5.0
    } else {
        10.0
    };
    factor * magnitude
}

/// Tick label with as many decimals as the step needs.
fn tick_label(value: f64, step: f64) -> String {
    let decimals = (-step.log10().floor()).max(0.0) as usize;
    format!("{value:.decimals$}")
}

/// The axis end: `fixed` if given, else the largest value rounded up to a whole tick.
fn axis_max(fixed: Option<f64>, values: impl Iterator<Item = f64>) -> f64 {
    if let Some(m) = fixed.filter(|m| m.is_finite() && *m > 0.0) {
        return m;
    }
    let largest = values.filter(|v| v.is_finite()).fold(0.0, f64::max);
    if largest <= 0.0 {
        return 1.0;
    }
    let step = tick_step(largest, 5.0);
    (largest / step).ceil() * step
}

impl Plot {
    /// The plot as a standalone SVG document.
    pub fn render(&self) -> String {
        let x_max = axis_max(
            self.x_max,
            self.curves
                .iter()
                .flat_map(|c| c.points.iter().map(|p| p.0))
                .chain(self.markers.iter().flat_map(|s| s.markers.iter().map(|m| m.x)))
                .chain(self.vertical_lines.iter().map(|v| v.x)),
        );
        let y_max = axis_max(
            self.y_max,
            self.curves
                .iter()
                .flat_map(|c| c.points.iter().map(|p| p.1))
                .chain(self.markers.iter().flat_map(|s| s.markers.iter().map(|m| m.y + m.error))),
        );
        let plot_width = WIDTH - LEFT - RIGHT;
        let plot_height = HEIGHT - TOP - BOTTOM;
        let sx = |x: f64| LEFT + x / x_max * plot_width;
        let requested_min = self.y_min.filter(|m| m.is_finite() && *m > 0.0 && *m < y_max).unwrap_or(0.0);
        let y_step = tick_step(y_max - requested_min, 5.0);
        let y_min = (requested_min / y_step).floor() * y_step;
        let sy = |y: f64| TOP + plot_height - (y - y_min) / (y_max - y_min) * plot_height;

        let mut svg = String::new();
        let _ = writeln!(
            svg,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="12">"#
        );
        let _ = writeln!(svg, r#"<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>"#);
        let _ = writeln!(
            svg,
            r#"<clipPath id="plot-area"><rect x="{LEFT}" y="{TOP}" width="{plot_width}" height="{plot_height}"/></clipPath>"#
        );
        let _ = writeln!(svg, r#"<text x="{}" y="22" text-anchor="middle" font-size="14">{}</text>"#, WIDTH / 2.0, escape(&self.title));

        self.write_axes(&mut svg, x_max, (y_min, y_max, y_step), &sx, &sy);

        // Labels read upwards from the bottom, clear of latency curves, which rise at the right.
        let label_base = TOP + plot_height - 6.0;
        for line in &self.vertical_lines {
            if line.x > x_max {
                continue;
            }
            let x = sx(line.x);
            let _ = writeln!(
                svg,
                r##"<line x1="{x:.1}" y1="{TOP}" x2="{x:.1}" y2="{:.1}" stroke="#7f7f7f" stroke-dasharray="2,3"/>"##,
                TOP + plot_height
            );
            let _ = writeln!(
                svg,
                r##"<text x="{:.1}" y="{:.1}" fill="#7f7f7f" transform="rotate(-90 {:.1} {:.1})">{}</text>"##,
                x - 4.0,
                label_base,
                x - 4.0,
                label_base,
                escape(&line.label)
            );
        }

        for (i, curve) in self.curves.iter().enumerate() {
            let colour = LINE_COLOURS[i % LINE_COLOURS.len()];
            let path: Vec<String> = curve
                .points
                .iter()
                .filter(|(x, y)| x.is_finite() && y.is_finite())
                .enumerate()
                .map(|(j, &(x, y))| format!("{}{:.1},{:.1}", if j == 0 { "M" } else { "L" }, sx(x), sy(y)))
                .collect();
            if path.is_empty() {
                continue;
            }
            let dash = if curve.dashed { r#" stroke-dasharray="6,4""# } else { "" };
            let _ = writeln!(
                svg,
                r#"<path d="{}" fill="none" stroke="{colour}" stroke-width="2"{dash} clip-path="url(#plot-area)"/>"#,
                path.join(" ")
            );
        }

        for (i, series) in self.markers.iter().enumerate() {
            let colour = MARKER_COLOURS[i % MARKER_COLOURS.len()];
            for m in series.markers.iter().filter(|m| m.x.is_finite() && m.y.is_finite() && m.x <= x_max) {
                let x = sx(m.x);
                if m.y > y_max {
                    let top = TOP + 1.0;
                    let _ = writeln!(
                        svg,
                        r#"<polygon points="{:.1},{top:.1} {:.1},{:.1} {:.1},{:.1}" fill="none" stroke="{colour}"/>"#,
                        x,
                        x - 5.0,
                        top + 9.0,
                        x + 5.0,
                        top + 9.0
                    );
                    continue;
                }
                let y = sy(m.y);
                if m.error > 0.0 {
                    let (low, high) = (sy((m.y - m.error).max(y_min)), sy((m.y + m.error).min(y_max)));
                    let _ = writeln!(
                        svg,
                        r#"<path class="error-bar" d="M{x:.1},{low:.1} L{x:.1},{high:.1} M{:.1},{low:.1} L{:.1},{low:.1} M{:.1},{high:.1} L{:.1},{high:.1}" stroke="{colour}"/>"#,
                        x - 3.0,
                        x + 3.0,
                        x - 3.0,
                        x + 3.0
                    );
                }
                let _ = writeln!(svg, r#"<circle cx="{x:.1}" cy="{y:.1}" r="3.5" fill="{colour}"/>"#);
            }
        }

        self.write_legend(&mut svg);
        svg.push_str("</svg>\n");
        svg
    }

    fn write_axes(
        &self,
        svg: &mut String,
        x_max: f64,
        (y_min, y_max, y_step): (f64, f64, f64),
        sx: &dyn Fn(f64) -> f64,
        sy: &dyn Fn(f64) -> f64,
    ) {
        let bottom = HEIGHT - BOTTOM;
        let right = WIDTH - RIGHT;
        let _ = writeln!(
            svg,
            r##"<path d="M{LEFT},{TOP} L{LEFT},{bottom} L{right},{bottom}" fill="none" stroke="#000000"/>"##
        );
        let x_step = tick_step(x_max, 5.0);
        let mut i = 0.0;
        while i * x_step <= x_max * (1.0 + 1e-9) {
            let x = sx(i * x_step);
            let _ = writeln!(svg, r##"<line x1="{x:.1}" y1="{bottom}" x2="{x:.1}" y2="{:.1}" stroke="#000000"/>"##, bottom + 5.0);
            let _ = writeln!(
                svg,
                r#"<text x="{x:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
                bottom + 18.0,
                tick_label(i * x_step, x_step)
            );
            i += 1.0;
        }
        let mut j = (y_min / y_step).round();
        while j * y_step <= y_max * (1.0 + 1e-9) {
            let y = sy(j * y_step);
            let _ = writeln!(svg, r##"<line x1="{:.1}" y1="{y:.1}" x2="{LEFT}" y2="{y:.1}" stroke="#000000"/>"##, LEFT - 5.0);
            let _ = writeln!(
                svg,
                r##"<line x1="{LEFT}" y1="{y:.1}" x2="{right}" y2="{y:.1}" stroke="#e0e0e0"/>"##
            );
            let _ = writeln!(
                svg,
                r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
                LEFT - 8.0,
                y + 4.0,
                tick_label(j * y_step, y_step)
            );
            j += 1.0;
        }
        let _ = writeln!(
            svg,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            LEFT + (right - LEFT) / 2.0,
            HEIGHT - 10.0,
            escape(&self.x_label)
        );
        let (lx, ly) = (16.0, TOP + (bottom - TOP) / 2.0);
        let _ = writeln!(
            svg,
            r#"<text x="{lx}" y="{ly:.1}" text-anchor="middle" transform="rotate(-90 {lx} {ly:.1})">{}</text>"#,
            escape(&self.y_label)
        );
    }

    fn write_legend(&self, svg: &mut String) {
        let x = LEFT + 12.0;
        let mut y = TOP + 14.0;
        for (i, curve) in self.curves.iter().enumerate() {
            let colour = LINE_COLOURS[i % LINE_COLOURS.len()];
            let dash = if curve.dashed { r#" stroke-dasharray="6,4""# } else { "" };
            let _ = writeln!(
                svg,
                r#"<line x1="{x}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="{colour}" stroke-width="2"{dash}/>"#,
                y - 4.0,
                x + 22.0,
                y - 4.0
            );
            let _ = writeln!(svg, r#"<text x="{:.1}" y="{y:.1}">{}</text>"#, x + 28.0, escape(&curve.label));
            y += 16.0;
        }
        for (i, series) in self.markers.iter().enumerate() {
            let colour = MARKER_COLOURS[i % MARKER_COLOURS.len()];
            let _ = writeln!(
                svg,
                r#"<rect x="{:.1}" y="{:.1}" width="7" height="7" fill="{colour}"/>"#,
                x + 7.5,
                y - 7.5
            );
            let _ = writeln!(svg, r#"<text x="{:.1}" y="{y:.1}">{}</text>"#, x + 28.0, escape(&series.label));
            y += 16.0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Checks that every element opened is closed in order, that attribute quotes balance, and
    /// that no bare `&` or `<` appears in text: enough to catch a broken writer without an XML
    /// parser.
    fn assert_well_formed(svg: &str) {
        let mut stack: Vec<String> = Vec::new();
        let mut rest = svg;
        while let Some(open) = rest.find('<') {
            let text = &rest[..open];
            assert!(!text.contains('>'), "stray '>' in text {text:?}");
            for (i, _) in text.match_indices('&') {
                let entity = &text[i..];
                assert!(
                    ["&amp;", "&lt;", "&gt;", "&quot;"].iter().any(|e| entity.starts_with(e)),
                    "bare '&' in text {text:?}"
                );
            }
            let close = rest[open..].find('>').expect("unterminated tag") + open;
            let tag = &rest[open + 1..close];
            assert!(!tag.contains('<'), "'<' inside tag {tag:?}");
            assert_eq!(tag.matches('"').count() % 2, 0, "unbalanced quotes in {tag:?}");
            if let Some(name) = tag.strip_prefix('/') {
                assert_eq!(stack.pop().as_deref(), Some(name), "mismatched closing tag {name}");
            } else if !tag.ends_with('/') {
                let name = tag.split_whitespace().next().expect("tag name");
                stack.push(name.to_string());
            }
            rest = &rest[close + 1..];
        }
        assert!(rest.trim().is_empty(), "text after the root element");
        assert!(stack.is_empty(), "unclosed elements {stack:?}");
    }

    fn example() -> Plot {
        Plot {
            title: "k=8 & M=32 <example>".into(),
            x_label: "rate (messages/node/cycle)".into(),
            y_label: "latency (cycles)".into(),
            curves: vec![Curve { label: "model".into(), points: (0..50).map(|i| (i as f64 * 0.001, 40.0 + i as f64)).collect(), dashed: false }],
            markers: vec![MarkerSeries {
                label: "simulation".into(),
                markers: vec![
                    Marker { x: 0.01, y: 50.0, error: 2.0 },
                    Marker { x: 0.02, y: 62.0, error: 0.0 },
                    Marker { x: 0.03, y: 80.0, error: 5.0 },
                    Marker { x: 0.04, y: 5000.0, error: 900.0 },
                ],
            }],
            vertical_lines: vec![VerticalLine { label: "bound".into(), x: 0.045 }],
            x_max: None,
            y_max: Some(120.0),
            y_min: Some(38.0),
        }
    }

    #[test]
    fn the_svg_is_well_formed_and_escapes_text() {
        let svg = example().render();
        assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
        assert_well_formed(&svg);
        assert!(svg.contains("k=8 &amp; M=32 &lt;example&gt;"));
    }

    #[test]
    fn every_marker_is_drawn_once_and_off_scale_ones_as_triangles() {
        let svg = example().render();
        assert_eq!(svg.matches("<circle").count(), 3, "three points are on the scale");
        assert_eq!(svg.matches("<polygon").count(), 1, "the saturated point sits on the top edge");
        assert_eq!(svg.matches("class=\"error-bar\"").count(), 2, "the on-scale points with a nonzero CI");
        let curve = svg.lines().find(|l| l.contains("stroke-width=\"2\" clip-path")).expect("the model curve");
        assert_eq!(curve.matches('L').count() + curve.matches('M').count(), 50);
    }

    #[test]
    fn ticks_are_round_numbers() {
        assert_eq!(tick_step(0.0186, 5.0), 0.005);
        assert_eq!(tick_step(210.0, 5.0), 50.0);
        assert_eq!(tick_label(0.015, 0.005), "0.015");
        assert_eq!(tick_label(150.0, 50.0), "150");
        assert_eq!(axis_max(None, [0.0, 183.0].into_iter()), 200.0);
    }

    #[test]
    fn the_y_axis_starts_at_a_tick_below_the_requested_minimum() {
        let svg = example().render();
        // y from 20 (38 rounded down to the step of 20 that suits the range 38..120) to 120.
        assert!(svg.contains(">20</text>") && !svg.contains(">0</text>"));
        let lowest_marker = svg
            .lines()
            .filter_map(|l| l.strip_prefix("<circle cx=\"").and_then(|r| r.split("cy=\"").nth(1)))
            .map(|r| r.split('"').next().unwrap().parse::<f64>().unwrap())
            .fold(0.0, f64::max);
        // The marker at y = 50 sits 30/100 of the plot height above the bottom axis.
        let expected = TOP + (HEIGHT - TOP - BOTTOM) * (1.0 - 30.0 / 100.0);
        assert!((lowest_marker - expected).abs() < 0.1, "{lowest_marker} vs {expected}");
    }
}
