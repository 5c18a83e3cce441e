// Snapping: a moving box's edges and centre are drawn to the canvas's edges and centre,
// to other layers' edges and centres, and to a grid, within a few screen pixels.

/** The lines a box offers on one axis: its start, centre and end. */
export function linesOf(start, size) {
  return [start, start + size / 2, start + size];
}

/** The axis-aligned bounds of a (possibly rotated) layer box. */
export function bounds(layer) {
  const angle = ((layer.rotation || 0) * Math.PI) / 180;
  if (!angle) return { x: layer.x, y: layer.y, width: layer.width, height: layer.height };
  const cos = Math.abs(Math.cos(angle));
  const sin = Math.abs(Math.sin(angle));
  const width = layer.width * cos + layer.height * sin;
  const height = layer.width * sin + layer.height * cos;
  return { x: layer.x + (layer.width - width) / 2, y: layer.y + (layer.height - height) / 2, width, height };
}

/** What boxes snap to: ``{x: [...], y: [...]}`` of the canvas and of the other layers. */
export function targets(template, moving) {
  const x = [0, template.width / 2, template.width];
  const y = [0, template.height / 2, template.height];
  for (const layer of template.layers || []) {
    if (moving.has(layer.name) || layer.visible === false) continue;
    const box = bounds(layer);
    x.push(...linesOf(box.x, box.width));
    y.push(...linesOf(box.y, box.height));
  }
  return { x, y };
}

/** The shift that snaps the nearest of ``lines`` to a target within ``threshold``, and
 * the target it snapped to; a grid counts for the box's start only. */
export function snapAxis(lines, candidates, grid, threshold) {
  let best = { shift: 0, at: null, distance: threshold + 1e-9 };
  for (const line of lines) {
    for (const target of candidates) {
      const distance = Math.abs(target - line);
      if (distance < best.distance) best = { shift: target - line, at: target, distance };
    }
  }
  if (grid > 0 && best.at === null) {
    const target = Math.round(lines[0] / grid) * grid;
    if (Math.abs(target - lines[0]) <= threshold) best = { shift: target - lines[0], at: target, distance: 0 };
  }
  return best;
}
