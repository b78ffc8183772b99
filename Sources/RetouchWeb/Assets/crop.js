// SPDX-License-Identifier: Apache-2.0
// The crop overlay: a rectangle in unit coordinates of the shown (uncropped) picture, with eight
// drag handles, kept inside the picture and, for fixed aspect ratios, at that ratio.
import { h } from './api.js';
import { t } from './i18n.js';

const handles = ['topLeft', 'top', 'topRight', 'right', 'bottomRight', 'bottom', 'bottomLeft', 'left'];

export class CropOverlay {
  /** `box`: element laid exactly over the picture; `onChange(rect)` after each drag ends. */
  constructor(box, onChange) {
    this.box = box;
    this.onChange = onChange;
    this.rect = { x: 0, y: 0, width: 1, height: 1 };
    this.ratio = null; // width ÷ height in pixels, or null (free)
    this.aspect = 1; // picture width ÷ height in pixels
    this.frame = h('div', { class: 'crop-frame', role: 'group', 'aria-label': t('cropArea'), tabindex: 0 });
    for (const name of handles) {
      const el = h('div', { class: `crop-handle ${name}`, 'data-handle': name, role: 'slider', tabindex: 0,
        'aria-label': `${t('handle')} ${name}` });
      el.addEventListener('pointerdown', (e) => this.startDrag(e, name));
      el.addEventListener('keydown', (e) => this.nudge(e, name));
      this.frame.append(el);
    }
    this.frame.addEventListener('pointerdown', (e) => { if (e.target === this.frame) this.startDrag(e, 'move'); });
    box.append(this.frame);
    this.layout();
  }

  set(rect, ratio, aspect) {
    this.rect = { ...rect };
    this.ratio = ratio;
    this.aspect = aspect;
    this.layout();
  }

  layout() {
    const r = this.rect;
    Object.assign(this.frame.style, {
      left: `${r.x * 100}%`, top: `${r.y * 100}%`, width: `${r.width * 100}%`, height: `${r.height * 100}%`,
    });
  }

  startDrag(event, handle) {
    event.preventDefault();
    const bounds = this.box.getBoundingClientRect();
    const start = { ...this.rect };
    const x0 = event.clientX, y0 = event.clientY;
    const move = (e) => {
      const dx = (e.clientX - x0) / bounds.width, dy = (e.clientY - y0) / bounds.height;
      this.rect = this.dragged(start, handle, dx, dy);
      this.layout();
    };
    const up = () => {
      window.removeEventListener('pointermove', move);
      window.removeEventListener('pointerup', up);
      this.onChange(this.rect);
    };
    window.addEventListener('pointermove', move);
    window.addEventListener('pointerup', up);
  }

  nudge(event, handle) {
    const step = event.shiftKey ? 0.05 : 0.01;
    const d = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, -step], ArrowDown: [0, step] }[event.key];
    if (!d) return;
    event.preventDefault();
    this.rect = this.dragged(this.rect, handle, d[0], d[1]);
    this.layout();
    this.onChange(this.rect);
  }

  /** The rectangle after moving `handle` by (dx, dy) in unit coordinates. */
  dragged(s, handle, dx, dy) {
    const min = 0.05;
    let x0 = s.x, y0 = s.y, x1 = s.x + s.width, y1 = s.y + s.height;
    if (handle === 'move') {
      const nx = Math.min(Math.max(0, x0 + dx), 1 - s.width), ny = Math.min(Math.max(0, y0 + dy), 1 - s.height);
      return { x: nx, y: ny, width: s.width, height: s.height };
    }
    if (handle.includes('eft') || handle === 'left') x0 = Math.min(Math.max(0, x0 + dx), x1 - min);
    if (handle.includes('ight')) x1 = Math.max(Math.min(1, x1 + dx), x0 + min);
    if (handle.startsWith('top')) y0 = Math.min(Math.max(0, y0 + dy), y1 - min);
    if (handle.startsWith('bottom')) y1 = Math.max(Math.min(1, y1 + dy), y0 + min);
    let r = { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
    if (this.ratio) r = this.constrained(r, handle);
    return r;
  }

  /** Keeps the pixel ratio: the dragged width wins (height for top/bottom), inside the picture. */
  constrained(r, handle) {
    const k = this.ratio / this.aspect; // unit width ÷ unit height for the ratio
    let w = r.width, hgt = r.height;
    if (handle === 'top' || handle === 'bottom') w = hgt * k; else hgt = w / k;
    const anchorX = handle.includes('eft') || handle === 'left' ? r.x + r.width : r.x;
    const anchorY = handle.startsWith('top') ? r.y + r.height : r.y;
    const roomX = handle.includes('eft') || handle === 'left' ? anchorX : 1 - anchorX;
    const roomY = handle.startsWith('top') ? anchorY : 1 - anchorY;
    const s = Math.min(1, roomX / w, roomY / hgt);
    w *= s; hgt *= s;
    const x = handle.includes('eft') || handle === 'left' ? anchorX - w : anchorX;
    const y = handle.startsWith('top') ? anchorY - hgt : anchorY;
    return { x, y, width: w, height: hgt };
  }
}

/** The largest rectangle of `ratio` (pixels) centred in a picture of pixel aspect `aspect`. */
export function centeredCrop(ratio, aspect) {
  if (!ratio) return { x: 0, y: 0, width: 1, height: 1 };
  let w = 1, hgt = aspect / ratio;
  if (hgt > 1) { hgt = 1; w = ratio / aspect; }
  return { x: (1 - w) / 2, y: (1 - hgt) / 2, width: w, height: hgt };
}
