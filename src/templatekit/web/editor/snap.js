// Snapping: a moving box's edges and centre are drawn to the canvas's edges and centre,
// to other layers' edges and centres, and to a grid, within a few screen pixels.

/** The lines a box offers on one axis: its start, centre and end. */
export function linesOf(start, size) {
  return [start, start + size / 2, start + size];
}

/** The axis-aligned bounds of a box turned by ``rotation`` degrees about its centre. */
export function bounds(box, rotation = 0) {
  const angle = ((rotation || 0) * Math.PI) / 180;
  if (!angle) return { x: box.x, y: box.y, width: box.width, height: box.height };
  const cos = Math.abs(Math.cos(angle));
  const sin = Math.abs(Math.sin(angle));
  const width = box.width * cos + box.height * sin;
  const height = box.width * sin + box.height * cos;
  return { x: box.x + (box.width - width) / 2, y: box.y + (box.height - height) / 2, width, height };
}

/** What boxes snap to: ``{x: [...], y: [...]}`` of the canvas and of ``others`` (the
 * bounds of the layers that stay put). */
export function targets(template, others) {
  const x = [0, template.width / 2, template.width];
  const y = [0, template.height / 2, template.height];
  for (const box of others) {
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
