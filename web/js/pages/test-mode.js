// The dashboard's test mode (docs/test-mode.md): one switch, remembered in this browser, that makes every Part A
// call of the Developers page carry `X-Mockup-Mode: test` (session calls choose their mode with that header).

const STORAGE_KEY = 'mockups.testMode';

/** @returns {boolean} whether the dashboard is in test mode */
export function isTestMode() {
  try {
    return localStorage.getItem(STORAGE_KEY) === 'on';
  } catch {
    return false;
  }
}

/** @param {boolean} on */
export function setTestMode(on) {
  try {
    if (on) localStorage.setItem(STORAGE_KEY, 'on');
    else localStorage.removeItem(STORAGE_KEY);
  } catch {
    // storage unavailable (private mode): the switch lasts for this page only
  }
  document.dispatchEvent(new CustomEvent('testmode', { detail: on }));
}

/**
 * Headers for a Part A call in the current mode.
 * @returns {Record<string, string>}
 */
export function modeHeaders() {
  return { 'x-mockup-mode': isTestMode() ? 'test' : 'live' };
}

/** @returns {'live' | 'test'} the current mode's name */
export function modeName() {
  return isTestMode() ? 'test' : 'live';
}
