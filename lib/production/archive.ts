// The production archive: the job sheet and the print files of an order in one ZIP, written as a stream (archiver's
// ZipArchive) so it goes to storage as it is made. PNG and PDF entries are stored, not deflated: they are compressed
// already, and deflating them again costs time for nothing.
import type { Readable } from 'node:stream';

export interface ArchiveEntry {
  name: string;
  /** read when the archive reaches the entry, so only one file is held at a time */
  load: () => Promise<Buffer>;
}

/** A ZIP of the entries, in order, as a readable stream; a failed read fails the stream. */
export function zipStream(entries: ArchiveEntry[], date = new Date(0)): Readable {
  // archiver is loaded by the first archive (issue 34: a worker that never makes one does not hold it;
  // test/unit/production-lazy.test.ts)
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { ZipArchive } = require('archiver') as typeof import('archiver');
  const zip = new ZipArchive({ store: true });
  void (async () => {
    try {
      for (const e of entries) {
        const body = await e.load();
        zip.append(body, { name: e.name, date });
        // wait for the entry to be written before reading the next file
        await new Promise<void>((resolve, reject) => {
          const done = () => {
            zip.off('error', fail);
            resolve();
          };
          const fail = (err: Error) => {
            zip.off('entry', done);
            reject(err);
          };
          zip.once('entry', done);
          zip.once('error', fail);
        });
      }
      await zip.finalize();
    } catch (err) {
      zip.destroy(err as Error);
    }
  })();
  return zip;
}
