// The studio's live preview: POST /api/v1/preview redraws the real render as the placement changes (free).
//
// One request in flight; changes made meanwhile are sent as one request when it ends (the latest placement wins).
// Requests are also paced to the preview budget (120 a minute per key or user): after each answer the next may go
// after (time to the window's reset) / (requests left), at least MIN_INTERVAL_MS. A long drag therefore spends the
// budget evenly and never runs into 429; the frame follows the pointer at once regardless.
import { api, ApiError } from '../../api.js';
import { announce, errorMessage } from '../../dom.js';

/** @typedef {import('../../api.js').Schemas} Schemas */

const MIN_INTERVAL_MS = 80;

/**
 * When the next preview may be asked for, from a preview's rate-limit headers (null: they are not there).
 * @param {Headers} headers
 * @param {number} now
 */
export function nextPreviewAt(headers, now) {
  const left = Number(headers.get('x-ratelimit-remaining'));
  const reset = Number(headers.get('x-ratelimit-reset')) * 1000;
  if (headers.get('x-ratelimit-remaining') === null || !Number.isFinite(left) || !Number.isFinite(reset)) return null;
  return now + Math.max(MIN_INTERVAL_MS, (reset - now) / Math.max(1, left));
}

/**
 * @param {{
 *   stage: HTMLElement,
 *   status: HTMLElement,
 *   isCurrent: () => boolean,
 *   request: () => Schemas['GenerateRequest'],
 *   shown: (blob: Blob, headers: Headers) => void,
 * }} opts `request` is read when a preview is sent; `shown` gets each preview that arrived while the page is current
 * @returns {() => void} asks for a preview of the current state: now, when the one in flight ends, or when the pace
 *   allows
 */
export function livePreview(opts) {
  let inFlight = false;
  let again = false;
  /** @type {ReturnType<typeof setTimeout> | null} */
  let timer = null;
  let nextAt = 0;
  let paused = false; // after a 429, until a preview succeeds: its message stays up

  /**
   * @param {boolean} on
   * @param {string} [text]
   */
  function busyStage(on, text) {
    if (on) {
      opts.stage.setAttribute('aria-busy', 'true');
      opts.stage.classList.add('rendering');
    } else {
      opts.stage.removeAttribute('aria-busy');
      opts.stage.classList.remove('rendering');
    }
    if (text) opts.status.textContent = text;
  }

  function preview() {
    if (!opts.isCurrent()) return;
    if (inFlight) {
      again = true;
      return;
    }
    const wait = nextAt - Date.now();
    if (wait > 0) {
      if (!timer) {
        timer = setTimeout(() => {
          timer = null;
          preview();
        }, wait);
        busyStage(true, paused ? undefined : 'Preview in a moment…');
      }
      return;
    }
    void send();
  }

  async function send() {
    inFlight = true;
    again = false;
    busyStage(true, 'Rendering preview…');
    try {
      const { data: blob, res } = await api('POST', '/api/v1/preview', opts.request(), { withResponse: true });
      nextAt = nextPreviewAt(res.headers, Date.now()) ?? nextAt;
      if (!opts.isCurrent()) return;
      opts.shown(blob, res.headers);
      paused = false;
      opts.status.textContent = 'Preview up to date. It is free; generating the full-size mockup costs 1 token.';
    } catch (err) {
      if (err instanceof ApiError && err.status === 429) {
        const wait = Number(err.details?.retryAfter ?? 5);
        nextAt = Date.now() + wait * 1000;
        again = true; // the placement shown is not rendered yet: ask again when the budget is back
        paused = true;
        opts.status.textContent = `Preview paused: the preview budget for this minute is used up. It resumes in ${wait} s.`;
      } else {
        opts.status.textContent = `Preview failed: ${errorMessage(err)}`;
        announce(`Preview failed: ${errorMessage(err)}`, 'error');
      }
    } finally {
      inFlight = false;
      busyStage(false);
      if (again) preview();
    }
  }

  return preview;
}
