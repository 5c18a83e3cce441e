// Small helpers every part of the page uses.

/** A new element with ``props`` set as properties (text as ``textContent``, never as
 * HTML) and ``children`` appended. */
export function el(tag, props = {}, ...children) {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children);
  return node;
}

/** ``value`` rounded to ``places`` decimals (positions to 1/100 px, times to 1/1000 s). */
export function round(value, places = 2) {
  const unit = 10 ** places;
  return Math.round(value * unit) / unit;
}
