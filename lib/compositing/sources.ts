// Where compositing's inputs come from, one way for the worker (generations, chat mockups) and the API's preview:
// the prepared-blank cache's loader (our blanks and their stored fabric maps from storage, a client's own blank
// photo through the SSRF-guarded loader) and a design's source (our own files named by their storage key, which is
// never reused, with levels prepared at upload time; anything else read and identified by its hash). Failures are
// passed on as they are (a BadInputError for input no retry can fix); callers name what failed.
import { ownFileKey } from '../fetch/own-files';
import { decodePrepared, preparedKey } from '../images/design-levels';
import type { Storage } from '../storage';
import type { DesignSource } from './design';
import { PreparedBlankCache } from './prepared';

export interface SourceDeps {
  storage: Storage;
  /** Reads a user-supplied image URL: our own files from storage, anything else through the SSRF guard. */
  loadUserImage: (url: string, signal?: AbortSignal) => Promise<Buffer>;
}

/**
 * A prepared-blank cache over `deps`: keys are storage keys of our blanks (with their stored fabric maps), or
 * `url:<address>` for a client's own blank photo (maps derived in memory). `maxSide`/`maxBytes` as in
 * PreparedBlankCache (the preview's small blanks); `findGarment` looks for the garment in a client's own photo
 * (lib/compositing/garment-detect.ts), kept with its prepared maps.
 */
export function createBlankCache(
  deps: SourceDeps,
  opts: { maxSide?: number; maxBytes?: number; findGarment?: boolean } = {},
): PreparedBlankCache {
  const { findGarment, ...sizes } = opts;
  return new PreparedBlankCache({
    ...sizes,
    load: async (key) => {
      if (!key.startsWith('url:')) return (await deps.storage.get(key))?.body ?? null;
      return deps.loadUserImage(key.slice(4));
    },
    mapsStored: (key) => !key.startsWith('url:'),
    ...(findGarment ? { findGarment: (key: string) => key.startsWith('url:') } : {}),
  });
}

/** A read the caller times (the generation activity's breakdown): its name and the read. */
export type TimedRead = <T>(name: 'readPrepared' | 'readDesign', read: () => Promise<T>) => Promise<T>;

/**
 * The design at `url` as compositing reads it, and its storage key when it is one of our own files (null otherwise).
 * A prepared-levels file that cannot be read counts as absent: the design is then decoded from its bytes.
 */
export function designSource(
  deps: SourceDeps & { publicBaseUrl: string },
  url: string,
  opts: { signal?: AbortSignal; timed?: TimedRead } = {},
): { source: DesignSource; ownKey: string | null } {
  const timed: TimedRead = opts.timed ?? ((_name, read) => read());
  const ownKey = ownFileKey(deps.publicBaseUrl, url);
  const source: DesignSource = {
    id: ownKey ? `file:${ownKey}` : undefined,
    // an upload's levels prepared at upload time (absent for other files and for uploads made before them)
    loadPrepared: ownKey
      ? async () => {
          const obj = await timed('readPrepared', () => deps.storage.get(preparedKey(ownKey)).catch(() => null));
          return obj ? decodePrepared(obj.body) : null;
        }
      : undefined,
    load: () => timed('readDesign', () => deps.loadUserImage(url, opts.signal)),
  };
  return { source, ownKey };
}
