'use strict';
/**
 * How readable text is, measured in the page from computed styles (not from a screenshot): for
 * each visible piece of text under a selector, its colour against the background it is drawn on
 * (the element's and its ancestors' background colours, composited), as WCAG 2's contrast ratio
 * (1 to 21; 4.5 is AA for body text, 3 for large text and for UI components).
 */

/**
 * Runs in the page: the text under `scope` (a selector), one entry per element that shows text of
 * its own (a text node child, or an input's or select's value), each {text, color, background,
 * ratio, fontSize, id, className}. Hidden elements (no box, visibility hidden) are left out.
 */
function measureInPage(scope) {
  const parse = (c) => {
    const m = /rgba?\(([^)]+)\)/.exec(c);
    if (!m) return [0, 0, 0, 0];
    const p = m[1]
      .split(/[\s,/]+/)
      .filter(Boolean)
      .map(Number);
    return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
  };
  /** `top` (with alpha) drawn over the opaque `under`. */
  const over = (top, under) => [0, 1, 2].map((i) => top[i] * top[3] + under[i] * (1 - top[3])).concat(1);
  const backgroundOf = (el) => {
    const layers = [];
    for (let e = el; e; e = e.parentElement) {
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c[3] > 0) layers.push(c);
      if (c[3] >= 1) break;
    }
    // What nothing paints over is the canvas: white, as the browser draws it.
    return layers.reverse().reduce((under, top) => over(top, under), [255, 255, 255, 1]);
  };
  const luminance = ([r, g, b]) => {
    const lin = (v) => {
      const s = v / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    };
    return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
  };
  const ratio = (a, b) => {
    const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
    return (hi + 0.05) / (lo + 0.05);
  };
  const visible = (el) => {
    const style = getComputedStyle(el);
    return el.getClientRects().length > 0 && style.visibility !== 'hidden' && Number(style.opacity) > 0;
  };
  const rgb = (c) => `rgb(${c.slice(0, 3).map(Math.round).join(', ')})`;
  const out = [];
  for (const el of document.querySelectorAll(`${scope}, ${scope} *`)) {
    if (!visible(el)) continue;
    const field = el.matches('input[type="text"], input:not([type]), select, textarea');
    const own = field
      ? el.tagName === 'SELECT'
        ? (el.selectedOptions[0]?.textContent ?? '')
        : el.value
      : [...el.childNodes]
          .filter((n) => n.nodeType === Node.TEXT_NODE)
          .map((n) => n.textContent)
          .join('');
    if (!own.trim()) continue;
    const background = backgroundOf(el);
    const color = over(parse(getComputedStyle(el).color), background);
    out.push({
      text: own.trim().slice(0, 60),
      color: rgb(color),
      background: rgb(background),
      ratio: Math.round(ratio(color, background) * 100) / 100,
      fontSize: getComputedStyle(el).fontSize,
      id: el.id,
      className: typeof el.className === 'string' ? el.className : '',
    });
  }
  return out;
}

/** The measured text under `scope` in `page` (see measureInPage). */
function measure(page, scope) {
  return page.evaluate(measureInPage, scope);
}

/** The entries below `min`, as lines for an assertion message. */
function below(entries, min) {
  return entries
    .filter((e) => e.ratio < min)
    .map((e) => `${e.ratio}: "${e.text}" ${e.color} on ${e.background} (${e.id || e.className})`);
}

module.exports = { measure, below, measureInPage };
