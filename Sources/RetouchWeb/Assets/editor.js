// SPDX-License-Identifier: Apache-2.0
// The editor page: one editing session of one photo (REST API in EditorAPI.swift).
import { call, fetchBlob, h, announce } from './api.js';
import { t, nameOf } from './i18n.js';
import { icon } from './icons.js';
import { PreviewDisplay, PreviewPipe } from './preview.js';
import { CropOverlay, centeredCrop } from './crop.js';

const $ = (id) => document.getElementById(id);
const stats = { previewsShown: 0, previewRequests: 0, firstPreviewMs: null };
window.retouchStats = stats;
// Read-only view of the session state for tests and debugging.
window.retouchState = () => state;

let catalog = null;
let sid = null;
let state = null; // SessionState from the server
let committed = {}; // setting id → committed value, updated as soon as a commit is sent
let mode = 'edit'; // 'edit' | 'crop'
let leaving = false;
// Set when the page is left (its session is closed then): answers that arrive later, or when
// the page comes back from the browser's history, must not ask for the closed session's images.
let closed = false;
let lookRevision = -1;
const sliders = new Map(); // setting id → {input, output, slider}
const display = new PreviewDisplay($('photo'), stats);
const pipe = new PreviewPipe(sendPreview, deliverPreview, (e) => { fail(e); resync(); });
let crop = null; // {overlay, aspectId}
let mixer = { band: 'red', channel: 'hue' };

const view = () => (mode === 'crop' ? 'uncropped' : 'edited');
const api = (path) => `/api/sessions/${sid}${path}`;

function fail(e) { announce(`${t('error')}: ${e.message}`, true); }
const guarded = (f) => (...args) => Promise.resolve().then(() => f(...args)).catch(fail);

// MARK: Previews

async function sendPreview(body) {
  stats.previewRequests += 1;
  const { blob, headers } = await fetchBlob('POST', api('/preview'), body);
  return { blob, state: JSON.parse(headers.get('X-Retouch-State') || 'null') };
}

function deliverPreview(result, job) {
  display.show(result.blob, job.seq);
  if (job.body.commit && result.state) setState(result.state);
}

/** Fetches and shows the committed preview for the current view. */
async function showCommitted() {
  const seq = display.ticket();
  const { blob } = await fetchBlob('GET', api(`/preview?view=${view()}&rev=${state.revision}`));
  display.show(blob, seq);
}

function requestChange(change, commit) {
  pipe.request({ change, commit, view: view() }, display.ticket());
}

async function resync() {
  await pipe.idle();
  setState(await call('GET', api('')));
  await showCommitted();
}

// MARK: State

function settingsOf(config) { return { ...(config.settings || {}) }; }

function setState(s) {
  state = s;
  if (!pipe.hasPendingCommits) committed = settingsOf(s.config);
  $('undo').disabled = !s.canUndo;
  $('redo').disabled = !s.canRedo;
  $('save').classList.toggle('unsaved', s.hasUnsavedChanges);
  document.body.dataset.unsaved = String(s.hasUnsavedChanges);
  document.body.dataset.revision = String(s.revision);
  for (const [id, entry] of sliders) {
    if (document.activeElement !== entry.input || !entry.dragging) setSliderValue(entry, committed[id] || 0);
  }
  const look = s.config.look && s.config.look.strength > 0 ? s.config.look.look : 'none';
  for (const button of $('looks').children) button.setAttribute('aria-checked', String(button.dataset.look === look));
  if (s.revision !== lookRevision && !closed) {
    lookRevision = s.revision;
    for (const img of $('looks').querySelectorAll('img')) {
      img.src = api(`/looks/${img.dataset.look}/thumbnail?rev=${s.revision}`);
    }
  }
}

// MARK: Sliders

function format(value, slider) {
  const digits = slider.step >= 1 ? 0 : slider.step >= 0.1 ? 1 : 2;
  const text = (Math.abs(value) < 1e-9 ? 0 : value).toFixed(digits);
  return `${value > 1e-9 ? '+' : ''}${text}${slider.unit ? ` ${slider.unit}` : ''}`;
}

function setSliderValue(entry, value) {
  entry.input.value = String(value);
  entry.output.textContent = format(value, entry.slider);
  entry.input.setAttribute('aria-valuetext', entry.output.textContent);
}

function makeSlider(slider) {
  const id = `slider-${slider.id.replace(/\./g, '-')}`;
  const input = h('input', { type: 'range', id, min: slider.minimum, max: slider.maximum, step: slider.step,
    value: 0, 'data-setting': slider.id, 'aria-describedby': 'reset-hint' });
  const output = h('output', { for: id, class: 'value' });
  const label = h('label', { for: id }, nameOf(slider.name));
  const entry = { input, output, slider, dragging: false };
  bindSlider(entry);
  sliders.set(slider.id, entry);
  setSliderValue(entry, committed[slider.id] || 0);
  return h('div', { class: 'slider' }, h('div', { class: 'slider-head' }, label, output), input);
}

function bindSlider(entry) {
  const { input } = entry;
  const settingID = () => entry.slider.id;
  input.addEventListener('pointerdown', () => { entry.dragging = true; });
  input.addEventListener('input', () => {
    const value = Number(input.value);
    entry.output.textContent = format(value, entry.slider);
    requestChange({ settings: { [settingID()]: value - (committed[settingID()] || 0) }, action: settingID() }, false);
  });
  input.addEventListener('change', () => {
    entry.dragging = false;
    commitSlider(entry, Number(input.value));
  });
  input.addEventListener('dblclick', () => commitSlider(entry, 0));
  input.addEventListener('keydown', (e) => {
    if (e.key === 'Delete' || e.key === 'Backspace') { e.preventDefault(); commitSlider(entry, 0); }
  });
}

function commitSlider(entry, value) {
  const id = entry.slider.id;
  const delta = value - (committed[id] || 0);
  setSliderValue(entry, value);
  if (Math.abs(delta) < 1e-12) return;
  committed[id] = value;
  requestChange({ settings: { [id]: delta }, action: id }, true);
}

function buildAdjust() {
  const groups = $('groups');
  for (const group of catalog.groups) {
    const body = h('div', { class: 'group-body' }, group.sliders.map(makeSlider));
    groups.append(h('details', { open: true, class: 'group', 'data-group': group.id },
      h('summary', {}, t(group.id)), body));
  }
  // Colour mixer: pick a band and a channel; one slider for that pair.
  const bandChips = h('div', { class: 'chips', role: 'radiogroup', 'aria-label': t('band') },
    catalog.mixer.bands.map((b) => h('button', { type: 'button', role: 'radio', class: `chip band band-${b.id}`,
      'data-band': b.id, 'aria-checked': String(b.id === mixer.band), 'aria-label': t(b.id),
      onclick: () => pickMixer(b.id, mixer.channel) })));
  const channelChips = h('div', { class: 'chips', role: 'radiogroup', 'aria-label': t('channel') },
    catalog.mixer.channels.map((c) => h('button', { type: 'button', role: 'radio', class: 'chip',
      'data-channel': c, 'aria-checked': String(c === mixer.channel), onclick: () => pickMixer(mixer.band, c) }, t(c))));
  const holder = h('div', { id: 'mixer-slider' });
  groups.append(h('details', { class: 'group', 'data-group': 'colorMixer' },
    h('summary', {}, t('colorMixer')), h('div', { class: 'group-body' }, bandChips, channelChips, holder)));
  groups.append(h('p', { id: 'reset-hint', class: 'hint' }, t('resetHint')));
  pickMixer(mixer.band, mixer.channel);
}

function pickMixer(band, channel) {
  mixer = { band, channel };
  for (const b of document.querySelectorAll('[data-band]')) b.setAttribute('aria-checked', String(b.dataset.band === band));
  for (const c of document.querySelectorAll('[data-channel]')) c.setAttribute('aria-checked', String(c.dataset.channel === channel));
  for (const key of [...sliders.keys()]) if (key.startsWith('mixer.')) sliders.delete(key);
  const slider = catalog.mixer.sliders.find((s) => s.id === `mixer.${band}.${channel}`);
  $('mixer-slider').replaceChildren(slider ? makeSlider(slider) : '');
}

// MARK: Looks and suggestions

function buildLooks() {
  const items = [{ id: 'none', name: null }, ...catalog.looks];
  $('looks-title').textContent = t('looks');
  $('looks').setAttribute('aria-label', t('looks'));
  $('looks').replaceChildren(...items.map((look) => {
    const label = look.name ? nameOf(look.name) : t('none');
    return h('button', { type: 'button', role: 'radio', class: 'look', 'data-look': look.id, 'aria-checked': 'false',
      'aria-label': `${t('lookOn')}: ${label}`, onclick: () => pickLook(look.id) },
      h('img', { alt: '', 'data-look': look.id, width: 96, height: 72 }), h('span', {}, label));
  }));
}

function pickLook(id) {
  const look = id === 'none' ? { look: 'chrome', strength: 0 } : { look: id, strength: 1 };
  requestChange({ look, action: 'look' }, true);
}

async function loadSuggestions() {
  const { suggestions } = await call('GET', api('/suggestions'));
  if (closed) return;
  const section = $('suggestions-section');
  section.hidden = suggestions.length === 0;
  document.body.dataset.suggestions = String(suggestions.length);
  $('suggestions').setAttribute('aria-label', t('suggestions'));
  $('suggestions').replaceChildren(...suggestions.map((s) => h('button', {
    type: 'button', role: 'radio', class: 'look suggestion', 'data-suggestion': s.id, 'aria-checked': 'false',
    'aria-label': `${t('suggestionOn')}: ${nameOf(s.title)}`, onclick: guarded(() => applySuggestion(s.id)),
  }, h('img', { alt: '', width: 96, height: 72, src: api(`/suggestions/${encodeURIComponent(s.id)}/thumbnail`) }),
  h('span', {}, nameOf(s.title)))));
}

async function applySuggestion(id) {
  await pipe.idle();
  setState(await call('POST', api(`/suggestions/${encodeURIComponent(id)}/apply`)));
  for (const b of $('suggestions').children) b.setAttribute('aria-checked', String(b.dataset.suggestion === id));
  await showCommitted();
}

// MARK: History, compare, save, revert, export

async function history(kind) {
  await pipe.idle();
  setState(await call('POST', api(`/${kind}`)));
  await showCommitted();
  if (mode === 'crop') syncCropFromState();
}

let originalURL = null;
async function compare(on) {
  const img = $('photo');
  if (on) {
    if (!originalURL) {
      const { blob } = await fetchBlob('GET', api('/preview?view=original'));
      originalURL = URL.createObjectURL(blob);
    }
    img.src = originalURL;
    document.body.dataset.comparing = 'true';
  } else if (document.body.dataset.comparing === 'true') {
    img.src = display.url;
    document.body.dataset.comparing = 'false';
  }
}

async function save() {
  await pipe.idle();
  try {
    setState(await call('POST', api('/save'), { overwrite: false }));
  } catch (e) {
    if (e.status !== 409 || !window.confirm(`${t('conflict')}\n\n${e.message}`)) throw e;
    setState(await call('POST', api('/save'), { overwrite: true }));
  }
  announce(t('saved'));
}

async function revert() {
  if (!window.confirm(t('confirmRevert'))) return;
  await pipe.idle();
  setState(await call('POST', api('/revert')));
  await showCommitted();
  announce(t('reverted'));
}

async function exportFile() {
  await pipe.idle();
  announce(t('exporting'));
  const format = $('export-format').value;
  const quality = Math.min(100, Math.max(1, Math.round(Number($('export-quality').value) || 90)));
  const { blob, headers } = await fetchBlob('GET', api(`/export?format=${format}&quality=${quality}`));
  const match = /filename="([^"]+)"/.exec(headers.get('Content-Disposition') || '');
  const url = URL.createObjectURL(blob);
  const a = h('a', { href: url, download: match ? match[1] : `export.${{ jpeg: 'jpg', tiff: 'tif' }[format] || format}` });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
  announce(`${t('export')}: ${a.download}`);
}

// MARK: Crop mode

function pictureAspect() {
  const img = $('photo');
  return img.naturalWidth && img.naturalHeight ? img.naturalWidth / img.naturalHeight : state.width / state.height;
}

function ratioFor(aspectId) {
  const ar = catalog.aspectRatios.find((a) => a.id === aspectId);
  if (!ar || aspectId === 'free') return null;
  return aspectId === 'original' ? pictureAspect() : ar.ratio;
}

function syncCropFromState() {
  const c = state.config.crop;
  const rect = c ? { x: c[0], y: c[1], width: c[2], height: c[3] } : { x: 0, y: 0, width: 1, height: 1 };
  crop.aspectId = state.config.aspectRatio || 'original';
  crop.overlay.set(rect, ratioFor(crop.aspectId), pictureAspect());
  markAspect();
}

function markAspect() {
  for (const b of $('aspect-ratios').children) b.setAttribute('aria-checked', String(b.dataset.aspect === crop.aspectId));
}

function pickAspect(id) {
  crop.aspectId = id;
  const ratio = ratioFor(id);
  crop.overlay.set(ratio ? centeredCrop(ratio, pictureAspect()) : crop.overlay.rect, ratio, pictureAspect());
  markAspect();
}

async function setMode(next) {
  if (next === mode) return;
  await pipe.idle();
  if (next === 'edit' && crop) {
    // Leaving crop mode commits the rectangle as it is shown.
    const r = crop.overlay.rect;
    const clean = (v) => Math.min(1, Math.max(0, Math.round(v * 1e6) / 1e6));
    const x = clean(r.x), y = clean(r.y);
    const rect = [x, y, Math.min(clean(r.width), 1 - x), Math.min(clean(r.height), 1 - y)];
    mode = 'edit';
    requestChange({ crop: rect, aspectRatio: crop.aspectId, action: 'crop' }, true);
  }
  mode = next;
  const cropping = mode === 'crop';
  $('crop-panel').hidden = !cropping;
  $('adjust-section').hidden = cropping;
  $('crop-box').hidden = !cropping;
  $('crop-toggle').setAttribute('aria-pressed', String(cropping));
  if (cropping) {
    await showCommitted();
    // The overlay needs the uncropped picture's shape: wait until it is decoded.
    await $('photo').decode().catch(() => {});
    syncCropFromState();
  }
  document.body.dataset.mode = mode;
}

function buildCrop() {
  $('crop-title').textContent = t('crop');
  crop = { overlay: new CropOverlay($('crop-box'), () => {}), aspectId: 'original' };
  $('aspect-ratios').setAttribute('aria-label', t('aspect'));
  $('aspect-ratios').replaceChildren(...catalog.aspectRatios.map((a) => h('button', {
    type: 'button', role: 'radio', class: 'chip', 'data-aspect': a.id, 'aria-checked': 'false',
    onclick: () => pickAspect(a.id) }, nameOf(a.name))));
  $('straighten-row').replaceChildren(makeSlider(catalog.straighten));
  const turn = (rotation) => guarded(async () => {
    requestChange({ rotation, action: 'rotation' }, true);
    await pipe.idle();
    crop.overlay.set({ x: 0, y: 0, width: 1, height: 1 }, null, pictureAspect());
    crop.aspectId = 'free';
    markAspect();
  });
  setButton('rotate-left', 'rotateLeft', t('rotateLeft'), turn('rotate270'));
  setButton('rotate-right', 'rotateRight', t('rotateRight'), turn('rotate90'));
  setButton('flip', 'flip', t('flip'), turn('flipped'));
  $('crop-reset').textContent = t('resetCrop');
  $('crop-reset').addEventListener('click', () => {
    crop.aspectId = 'original';
    crop.overlay.set({ x: 0, y: 0, width: 1, height: 1 }, ratioFor('original'), pictureAspect());
    markAspect();
    const straighten = committed.straighten || 0;
    if (straighten) commitSlider(sliders.get('straighten'), 0);
  });
  $('crop-done').textContent = t('done');
  $('crop-done').addEventListener('click', guarded(() => setMode('edit')));
}

// MARK: Layout and wiring

function fit() {
  const img = $('photo');
  if (!img.naturalWidth) return;
  const stage = $('stage').getBoundingClientRect();
  const s = Math.min((stage.width - 24) / img.naturalWidth, (stage.height - 24) / img.naturalHeight);
  img.style.width = `${Math.max(1, Math.floor(img.naturalWidth * s))}px`;
  img.style.height = `${Math.max(1, Math.floor(img.naturalHeight * s))}px`;
}

function setButton(id, iconName, label, onclick) {
  const b = $(id);
  b.replaceChildren(icon(iconName));
  b.setAttribute('aria-label', label);
  b.title = label;
  if (onclick) b.addEventListener('click', onclick);
}

function wire() {
  setButton('back', 'back', t('back'));
  $('back').addEventListener('click', (e) => {
    if (state && (state.hasUnsavedChanges || pipe.hasPendingCommits) && !window.confirm(t('unsaved'))) {
      e.preventDefault();
      return;
    }
    leaving = true;
  });
  setButton('undo', 'undo', `${t('undo')} (Ctrl+Z)`, guarded(() => history('undo')));
  setButton('redo', 'redo', `${t('redo')} (Ctrl+Shift+Z)`, guarded(() => history('redo')));
  setButton('compare', 'compare', t('compare'));
  const cmp = $('compare');
  cmp.addEventListener('pointerdown', guarded(() => compare(true)));
  for (const ev of ['pointerup', 'pointerleave', 'pointercancel', 'blur']) cmp.addEventListener(ev, guarded(() => compare(false)));
  cmp.addEventListener('keydown', (e) => { if ((e.key === ' ' || e.key === 'Enter') && !e.repeat) { e.preventDefault(); guarded(compare)(true); } });
  cmp.addEventListener('keyup', (e) => { if (e.key === ' ' || e.key === 'Enter') guarded(compare)(false); });
  setButton('crop-toggle', 'crop', t('crop'), guarded(() => setMode(mode === 'crop' ? 'edit' : 'crop')));
  $('revert').replaceChildren(icon('revert'), ' ', t('revert'));
  $('revert').addEventListener('click', guarded(revert));
  $('save').replaceChildren(icon('save'), ' ', t('save'));
  $('save').addEventListener('click', guarded(save));
  $('export').replaceChildren(icon('download'), ' ', t('export'));
  $('export').addEventListener('click', guarded(exportFile));
  $('format-label').textContent = `${t('format')} `;
  $('quality-label').textContent = `${t('quality')} `;
  $('adjust-title').textContent = t('adjust');
  $('suggestions-title').textContent = t('suggestions');
  $('photo').addEventListener('load', fit);
  window.addEventListener('resize', fit);
  document.addEventListener('keydown', (e) => {
    if (!(e.ctrlKey || e.metaKey) || ['SELECT', 'TEXTAREA'].includes(e.target.tagName) || e.target.type === 'number') return;
    const key = e.key.toLowerCase();
    if (key === 'z' || key === 'y') {
      e.preventDefault();
      guarded(history)(key === 'y' || e.shiftKey ? 'redo' : 'undo');
    }
  });
  window.addEventListener('beforeunload', (e) => {
    if (!leaving && state && (state.hasUnsavedChanges || pipe.hasPendingCommits)) {
      e.preventDefault();
      e.returnValue = '';
    }
  });
  window.addEventListener('pagehide', () => {
    if (!sid) return;
    closed = true;
    // Thumbnails still loading (or queued: the browser sends only a few requests at a time)
    // would reach the server after the session is closed below: stop them first.
    for (const img of document.images) if (!img.complete) img.removeAttribute('src');
    fetch(api(''), { method: 'DELETE', keepalive: true, credentials: 'same-origin' }).catch(() => {});
  });
  // Back to this page from the browser's history: the page comes back as it was left, but its
  // session was closed on the way out, so open the photo again (with what was saved).
  window.addEventListener('pageshow', (e) => {
    if (e.persisted) window.location.reload();
  });
}

async function main() {
  wire();
  const asset = new URLSearchParams(window.location.search).get('asset');
  const [settings, opened] = await Promise.all([
    call('GET', '/api/settings'),
    call('POST', '/api/sessions', { assetId: asset || '' }),
  ]);
  catalog = settings;
  sid = opened.state.sessionID;
  $('photo-name').textContent = opened.state.name;
  $('photo').alt = `${t('photo')}: ${opened.state.name}`;
  document.title = `${opened.state.name} · Retouch`;
  const seq = display.ticket();
  const first = fetchBlob('GET', opened.previewURL);
  committed = settingsOf(opened.state.config);
  buildAdjust();
  buildLooks();
  buildCrop();
  setState(opened.state);
  display.show((await first).blob, seq);
  document.body.dataset.ready = 'true';
  await loadSuggestions();
  document.body.dataset.suggestionsLoaded = 'true';
}

main().catch(fail);
