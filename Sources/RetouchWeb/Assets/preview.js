// SPDX-License-Identifier: Apache-2.0
// Preview traffic: at most one render request in flight, the newest wish sent next; every
// picture carries a sequence number so an older one never replaces a newer one on screen.

/** Shows JPEG blobs in an <img> in sequence order, freeing the object URLs it replaces. */
export class PreviewDisplay {
  constructor(img, stats) {
    this.img = img;
    this.stats = stats;
    this.nextSeq = 0;
    this.shownSeq = -1;
    this.url = null;
  }

  /** A ticket for a picture about to be requested; pass it to show(). */
  ticket() { this.nextSeq += 1; return this.nextSeq; }

  /** Shows `blob` unless a newer ticket was already shown. Returns whether it was shown. */
  show(blob, seq) {
    if (seq <= this.shownSeq) return false;
    this.shownSeq = seq;
    const url = URL.createObjectURL(blob);
    const old = this.url;
    this.url = url;
    this.img.src = url;
    this.img.dataset.seq = String(seq);
    if (old) setTimeout(() => URL.revokeObjectURL(old), 1000);
    this.stats.previewsShown += 1;
    if (this.stats.firstPreviewMs === null) this.stats.firstPreviewMs = performance.now();
    return true;
  }
}

/**
 * Sends preview requests one at a time. A waiting uncommitted request is replaced by a newer one
 * (a drag only needs its latest position); commits are never dropped and keep their order.
 */
export class PreviewPipe {
  /** `send(body) → Promise<{blob, state}>`; `deliver(result, job)` is called for each answer. */
  constructor(send, deliver, onError) {
    this.send = send;
    this.deliver = deliver;
    this.onError = onError;
    this.queue = [];
    this.busy = false;
    this.idleWaiters = [];
  }

  /** Queues `body` ({change, commit, view}) with display ticket `seq`. */
  request(body, seq) {
    const last = this.queue[this.queue.length - 1];
    if (last && !last.body.commit) this.queue.pop();
    this.queue.push({ body, seq });
    this.pump();
  }

  get hasPendingCommits() { return this.queue.some((j) => j.body.commit) || (this.current && this.current.body.commit); }

  /** Resolves when nothing is queued or in flight. */
  idle() {
    if (!this.busy && !this.queue.length) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  async pump() {
    if (this.busy) return;
    const job = this.queue.shift();
    if (!job) {
      const waiters = this.idleWaiters.splice(0);
      waiters.forEach((w) => w());
      return;
    }
    this.busy = true;
    this.current = job;
    try {
      const result = await this.send(job.body);
      this.current = null;
      this.deliver(result, job);
    } catch (e) {
      this.current = null;
      this.onError(e, job);
    } finally {
      this.busy = false;
      this.pump();
    }
  }
}
