// SPDX-License-Identifier: Apache-2.0
// Calls to the REST API (documented in EditorAPI.swift) and a small DOM helper.
// The access token travels in an HttpOnly cookie set on the first page load.

/** An API failure with the server's message. */
export class APIError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

async function failure(response) {
  let message = `${response.status} ${response.statusText}`;
  try {
    const body = await response.json();
    if (body && body.message) message = body.message;
  } catch (_) { /* not JSON */ }
  return new APIError(response.status, message);
}

/** fetch() with an optional JSON body; rejects with the server's message on a failure status. */
async function send(method, path, body) {
  const init = { method, headers: {}, credentials: 'same-origin' };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  if (!response.ok) throw await failure(response);
  return response;
}

/** JSON request; resolves to the parsed answer (or null for 204). */
export async function call(method, path, body) {
  const response = await send(method, path, body);
  return response.status === 204 ? null : response.json();
}

/** A binary answer as a Blob, with the response's headers. */
export async function fetchBlob(method, path, body) {
  const response = await send(method, path, body);
  return { blob: await response.blob(), headers: response.headers };
}

/** Uploads one file as the raw body; `onProgress(fraction)`. Resolves to the AssetSummary. */
export function upload(file, onProgress) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', `/api/assets?name=${encodeURIComponent(file.name)}`);
    xhr.responseType = 'json';
    xhr.upload.onprogress = (e) => { if (e.lengthComputable) onProgress(e.loaded / e.total); };
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) resolve(xhr.response);
      else reject(new APIError(xhr.status, (xhr.response && xhr.response.message) || `${xhr.status}`));
    };
    xhr.onerror = () => reject(new APIError(0, 'network error'));
    xhr.send(file);
  });
}

/** `h('button', {class: 'x', onclick: f}, 'text', child)`: an element; strings become text. */
export function h(tag, attributes = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on')) el.addEventListener(key.slice(2), value);
    else if (key === 'class') el.className = value;
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** Shows a short message in the page's live region. */
export function announce(text, isError = false) {
  const region = document.getElementById('status');
  if (!region) return;
  region.textContent = text;
  region.classList.toggle('error', isError);
}
