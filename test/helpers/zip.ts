// Reading a ZIP the service made (bulk archives, production ZIPs) back with yauzl.
import yauzl from 'yauzl';

/** Every entry of a ZIP: its name and its bytes, in the archive's order. */
export function zipEntries(buf: Buffer): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(buf, { lazyEntries: true }, (err, zip) => {
      if (err || !zip) return reject(err ?? new Error('not a ZIP'));
      const out = new Map<string, Buffer>();
      zip.on('entry', (e: yauzl.Entry) =>
        zip.openReadStream(e, (err2, s) => {
          if (err2 || !s) return reject(err2);
          const chunks: Buffer[] = [];
          s.on('data', (c: Buffer) => chunks.push(c));
          s.on('end', () => {
            out.set(e.fileName, Buffer.concat(chunks));
            zip.readEntry();
          });
        }),
      );
      zip.on('end', () => resolve(out));
      zip.on('error', reject);
      zip.readEntry();
    });
  });
}

/** The entry names of a ZIP, in the archive's order. */
export async function zipNames(buf: Buffer): Promise<string[]> {
  return [...(await zipEntries(buf)).keys()];
}
