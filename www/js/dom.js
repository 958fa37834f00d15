// DOM helpers. Text always goes in as text nodes: nothing from a link, a control or the
// simulator is ever parsed as markup.

export function el(tag, attrs = {}, children = []) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
  for (const child of children) node.append(typeof child === 'string' ? document.createTextNode(child) : child);
  return node;
}

export function download(blob, filename) {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

// A scenario string for a PNG's caption: `prefix` then its key=value pairs, broken after an `&`
// wherever a line would be wider than `width` in `measure`'s current font (a canvas context).
export function wrapScenario(measure, prefix, scenario, width) {
  const lines = [];
  let line = prefix;
  for (const part of scenario.split('&')) {
    const next = line.endsWith(': ') ? `${line}${part}` : `${line}&${part}`;
    if (measure.measureText(next).width > width && !line.endsWith(': ')) {
      lines.push(`${line}&`);
      line = part;
    } else line = next;
  }
  lines.push(line);
  return lines;
}
