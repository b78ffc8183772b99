// SPDX-License-Identifier: Apache-2.0
// The library page: photo grid, edit sessions, import by upload and drag-and-drop, delete/restore.
import { call, upload, h, announce } from './api.js';
import { t, lang } from './i18n.js';
import { icon } from './icons.js';

const $ = (id) => document.getElementById(id);

function setTexts() {
  $('title').textContent = `Retouch · ${t('library')}`;
  $('show-deleted-label').textContent = t('showDeleted');
  $('import-button').replaceChildren(icon('upload'), ' ', t('import'));
  $('photos-title').textContent = t('photos');
  $('sessions-title').textContent = t('editSessions');
  $('uploads-title').textContent = t('uploading');
  $('empty').textContent = t('noPhotos');
  $('no-sessions').textContent = t('noSessions');
  $('drop-hint').textContent = t('dropHint');
}

async function refresh() {
  const showDeleted = $('show-deleted').checked;
  const [{ assets }, { sessions }] = await Promise.all([
    call('GET', `/api/assets${showDeleted ? '?deleted=1' : ''}`),
    call('GET', '/api/edit-sessions'),
  ]);
  const grid = $('grid');
  grid.replaceChildren(...assets.map(card));
  $('empty').hidden = assets.length > 0;
  const names = new Map(assets.map((a) => [a.id, a]));
  $('sessions').replaceChildren(...sessions.map((s) => sessionRow(s, names.get(s.assetID))));
  $('no-sessions').hidden = sessions.length > 0;
}

function card(asset) {
  const thumb = h('img', {
    src: `/api/assets/${asset.id}/thumbnail?rev=${asset.revision}`, alt: asset.name, loading: 'lazy',
    width: 320, height: 240, class: 'thumb',
  });
  const actions = asset.isDeleted
    ? h('button', { type: 'button', class: 'icon-button', 'aria-label': `${t('restore')}: ${asset.name}`,
      onclick: () => act('POST', `/api/assets/${asset.id}/restore`) }, icon('restore'))
    : h('button', { type: 'button', class: 'icon-button', 'aria-label': `${t('delete')}: ${asset.name}`,
      onclick: () => act('DELETE', `/api/assets/${asset.id}`) }, icon('trash'));
  const open = asset.isDeleted
    ? h('span', { class: 'photo-link' }, thumb)
    : h('a', { href: `/editor?asset=${encodeURIComponent(asset.id)}`, class: 'photo-link',
      'aria-label': `${t('open')}: ${asset.name}` }, thumb);
  return h('li', { class: `card${asset.isDeleted ? ' deleted' : ''}`, 'data-asset': asset.id },
    open,
    h('div', { class: 'card-footer' },
      h('span', { class: 'name', title: asset.name }, asset.name),
      asset.isEdited ? h('span', { class: 'badge', 'data-edited': 'true' }, icon('edited'), t('edited')) : null,
      actions));
}

function sessionRow(s, asset) {
  const date = new Date(s.savedAt * 1000).toLocaleString(lang === 'zh' ? 'zh-Hans' : 'en');
  const count = Object.keys(s.settings).length;
  const detail = [s.look, count ? `${count} ×` : null].filter(Boolean).join(' · ');
  return h('li', { class: 'session' },
    h('a', { href: `/editor?asset=${encodeURIComponent(s.assetID)}` },
      h('img', { src: `/api/assets/${s.assetID}/thumbnail?rev=${asset ? asset.revision : s.revision}`, alt: '',
        width: 64, height: 48, loading: 'lazy' }),
      h('span', { class: 'name' }, s.name)),
    h('span', { class: 'hint' }, detail),
    h('time', { datetime: new Date(s.savedAt * 1000).toISOString() }, date));
}

async function act(method, path) {
  try {
    await call(method, path);
    await refresh();
  } catch (e) {
    announce(`${t('error')}: ${e.message}`, true);
  }
}

/** Uploads files one after another, each with its own progress row; a bad file does not stop the rest. */
async function importFiles(files) {
  if (!files.length) return;
  $('uploads').hidden = false;
  const list = $('upload-list');
  const jobs = [...files].map((file) => {
    const bar = h('progress', { max: 1, value: 0, 'aria-label': `${t('uploading')} ${file.name}` });
    const note = h('span', { class: 'upload-note' }, t('uploading'));
    const row = h('li', { class: 'upload', 'data-name': file.name }, h('span', { class: 'name' }, file.name), bar, note);
    list.append(row);
    return { file, bar, note, row };
  });
  let ok = 0;
  for (const job of jobs) {
    try {
      await upload(job.file, (f) => { job.bar.value = f; });
      job.bar.value = 1;
      job.note.textContent = t('imported');
      job.row.classList.add('done');
      ok += 1;
    } catch (e) {
      job.note.textContent = `${t('failed')}: ${e.message}`;
      job.row.classList.add('failed');
      job.row.setAttribute('data-error', e.message);
    }
  }
  announce(`${t('imported')}: ${ok} / ${jobs.length}`);
  await refresh();
}

function setUpDrop() {
  const overlay = $('drop-overlay');
  let depth = 0;
  const hasFiles = (e) => e.dataTransfer && [...e.dataTransfer.types].includes('Files');
  window.addEventListener('dragenter', (e) => { if (hasFiles(e)) { depth += 1; overlay.hidden = false; } });
  window.addEventListener('dragleave', () => { depth = Math.max(0, depth - 1); if (!depth) overlay.hidden = true; });
  window.addEventListener('dragover', (e) => { if (hasFiles(e)) e.preventDefault(); });
  window.addEventListener('drop', (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    depth = 0;
    overlay.hidden = true;
    importFiles(e.dataTransfer.files);
  });
}

setTexts();
$('import-button').addEventListener('click', () => $('file-input').click());
$('file-input').addEventListener('change', (e) => { importFiles(e.target.files); e.target.value = ''; });
$('show-deleted').addEventListener('change', () => refresh().catch((e) => announce(e.message, true)));
setUpDrop();
// Back here from the browser's history: the page comes back as it was left; list what changed
// since (edits saved, photos imported elsewhere).
window.addEventListener('pageshow', (e) => {
  if (e.persisted) refresh().catch((err) => announce(err.message, true));
});
refresh().then(() => { document.body.dataset.ready = 'true'; }).catch((e) => announce(`${t('error')}: ${e.message}`, true));
