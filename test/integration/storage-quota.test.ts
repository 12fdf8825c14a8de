// Storage per account: the quota on what an account's uploads take, deduplication of an
// account's identical uploads, and the retention of prepared levels by the maintenance sweep.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pngVariant } from '../../bench/lib';
import { storageUsed } from '../../db/uploads';
import { configureDesignCache } from '../../lib/compositing';
import { randomSuffix } from '../../lib/ids';
import { preparedBytes, preparedKey } from '../../lib/images';
import { maintenanceSweep } from '../../workflows';
import {
  backdateUpload,
  levelsBackfillDryRun,
  skewStorageUsage,
  uploadSize,
  uploadSizes,
  type UploadSizes,
} from '../helpers/db-inspect';
import * as F from '../helpers/fixtures';
import { account as newAccount, http } from '../helpers/http';
import { startStack, type Stack } from '../helpers/stack';

type Account = Awaited<ReturnType<typeof newAccount>>;

/** The accounts made by this file. */
const mine: string[] = [];
async function account(baseUrl: string): Promise<Account> {
  const a = await newAccount(baseUrl);
  mine.push(a.userId);
  return a;
}

describe('storage per account: quota, deduplication, retention of prepared levels', function () {
  this.timeout(180_000);
  let stack: Stack;
  let defaultQuota: number;

  before(async () => {
    stack = await startStack('storage-quota');
    defaultQuota = stack.config.uploads.quotaBytes;
  });
  after(async () => stack?.stop());
  afterEach(() => {
    stack.config.uploads.quotaBytes = defaultQuota;
  });

  const upload = (acct: Account, bytes: Buffer) =>
    http(stack.baseUrl, 'POST', '/api/v1/upload', { key: acct.key, json: { imageData: F.toDataUrl(bytes) } });
  const keyOf = (url: string) => decodeURIComponent(new URL(url).pathname.replace(/^\/files\//, ''));
  const rows = uploadSizes;
  const rowBytes = (r: UploadSizes) => r.sizeBytes + r.thumbnailBytes + r.levelsBytes;
  /** Every file under the stored uploads and prepared levels (local disk: the test stack's driver). */
  const storedFiles = (): string[] => {
    const root = path.join(stack.config.dataDir, 'files');
    const list = (dir: string) => {
      try {
        return readdirSync(path.join(root, dir)).map((f) => `${dir}/${f}`);
      } catch {
        return [];
      }
    };
    return [...list('uploads'), ...list('prepared/uploads')].sort();
  };

  it('counts what an upload stores: original, thumbnail and prepared levels', async () => {
    const acct = await account(stack.baseUrl);
    const png = await F.crispLogo(1000, 1200); // one prepared level, 500x600
    const res = await upload(acct, png);
    assert.equal(res.status, 201, res.text);
    const [row] = await rows(acct.userId);
    assert.equal(row!.sizeBytes, png.length);
    const thumb = await stack.storage.get(keyOf(res.body.thumbnailUrl));
    const levels = await stack.storage.get(preparedKey(keyOf(res.body.url)));
    assert.equal(row!.thumbnailBytes, thumb!.size);
    assert.equal(row!.levelsBytes, levels!.size);
    assert.equal(levels!.size, preparedBytes({ width: 1000, height: 1200 }));
    assert.equal(await storageUsed(stack.sql, acct.userId), png.length + thumb!.size + levels!.size);
  });

  it('refuses an upload that would pass the quota with 413 storage_quota_exceeded in the envelope, storing nothing', async () => {
    const acct = await account(stack.baseUrl);
    const first = await upload(acct, await F.crispLogo(600, 750));
    assert.equal(first.status, 201, first.text);
    const used = await storageUsed(stack.sql, acct.userId);
    const files = storedFiles();

    // refused after decoding (the thumbnail's few KB tip it over), and refused from the header alone
    const next = await F.crispLogo(610, 760);
    for (const limit of [used + next.length + 100, used + 1000]) {
      stack.config.uploads.quotaBytes = limit;
      const res = await upload(acct, next);
      assert.equal(res.status, 413, res.text);
      assert.equal(res.body.error.code, 'storage_quota_exceeded');
      assert.match(
        res.body.error.message,
        /^Storage quota exceeded: this upload needs [\d.]+ MiB .* stores [\d.]+ MiB of its [\d.]+ MiB$/,
      );
      assert.equal(res.body.error.details.usedBytes, used);
      assert.equal(res.body.error.details.limitBytes, limit);
      assert.ok(res.body.error.details.requiredBytes >= next.length);
      assert.ok(used + res.body.error.details.requiredBytes > limit);
    }
    assert.equal((await rows(acct.userId)).length, 1, 'no upload recorded');
    assert.equal(await storageUsed(stack.sql, acct.userId), used, 'nothing reserved');
    assert.deepEqual(storedFiles(), files, 'no file stored');

    // with room for it the same upload goes through
    stack.config.uploads.quotaBytes = used + next.length + 200_000;
    assert.equal((await upload(acct, next)).status, 201);
  });

  it('lets concurrent uploads near the limit take no more than the quota', async () => {
    const probe = await account(stack.baseUrl);
    const acct = await account(stack.baseUrl);
    const base = await F.crispLogo(1000, 1200);
    // same pixels (same thumbnail and levels), different bytes of the same length: six distinct uploads of one size
    const designs = Array.from({ length: 6 }, (_, i) => pngVariant(base, `concurrent-${i}`));
    const probed = await upload(probe, designs[0]!);
    assert.equal(probed.status, 201, probed.text);
    const each = rowBytes((await rows(probe.userId))[0]!);
    stack.config.uploads.quotaBytes = Math.floor(each * 2.5);

    const answers = await Promise.all(designs.map((d) => upload(acct, d)));
    const statuses = answers.map((a) => a.status).sort();
    assert.deepEqual(statuses, [201, 201, 413, 413, 413, 413], answers.map((a) => a.text).join('\n'));
    const stored = await rows(acct.userId);
    assert.equal(stored.length, 2);
    const used = await storageUsed(stack.sql, acct.userId);
    assert.equal(
      used,
      stored.map(rowBytes).reduce((a, b) => a + b, 0),
      'the total is what the two uploads store',
    );
    assert.ok(used <= stack.config.uploads.quotaBytes);
  });

  it('gives back the reservation and removes the files when storing fails', async () => {
    const acct = await account(stack.baseUrl);
    const files = storedFiles();
    const put = stack.storage.put;
    let calls = 0;
    stack.storage.put = async (key, body, type) => {
      if (++calls === 2) throw new Error('disk full');
      return put.call(stack.storage, key, body, type);
    };
    try {
      const res = await upload(acct, await F.crispLogo(1000, 1200));
      assert.equal(res.status, 500, res.text);
      assert.equal(res.body.error.code, 'internal_error');
    } finally {
      stack.storage.put = put;
    }
    assert.equal(await storageUsed(stack.sql, acct.userId), 0);
    assert.equal((await rows(acct.userId)).length, 0);
    assert.deepEqual(storedFiles(), files);
  });

  it("answers an account's repeated upload of the same bytes with its earlier upload (200), storing and counting nothing", async () => {
    const acct = await account(stack.baseUrl);
    const png = await F.crispLogo(1000, 1200);
    const first = await upload(acct, png);
    assert.equal(first.status, 201, first.text);
    const used = await storageUsed(stack.sql, acct.userId);
    const files = storedFiles();
    // a full account still gets its own upload back
    stack.config.uploads.quotaBytes = used;
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'again.png');
    for (const again of [
      await upload(acct, png),
      await http(stack.baseUrl, 'POST', '/api/v1/upload', { key: acct.key, body: form }),
    ]) {
      assert.equal(again.status, 200, again.text);
      assert.deepEqual(again.body, first.body, 'same id, URLs, dimensions, size and type');
    }
    assert.equal((await rows(acct.userId)).length, 1);
    assert.equal(await storageUsed(stack.sql, acct.userId), used);
    assert.deepEqual(storedFiles(), files);
  });

  it('stores identical uploads sent at the same time once', async () => {
    const acct = await account(stack.baseUrl);
    const png = pngVariant(await F.crispLogo(1000, 1200), `race-${randomSuffix(6)}`);
    const files = storedFiles();
    const answers = await Promise.all(Array.from({ length: 4 }, () => upload(acct, png)));
    assert.deepEqual(answers.map((a) => a.status).sort(), [200, 200, 200, 201], answers.map((a) => a.text).join('\n'));
    assert.equal(new Set(answers.map((a) => a.body.id)).size, 1);
    const stored = await rows(acct.userId);
    assert.equal(stored.length, 1);
    assert.equal(await storageUsed(stack.sql, acct.userId), rowBytes(stored[0]!), 'the losers gave their bytes back');
    const id = answers[0]!.body.id as string;
    assert.deepEqual(
      storedFiles().filter((f) => !files.includes(f)),
      [`prepared/uploads/${id}.png.levels`, `uploads/${id}.png`, `uploads/${id}.thumb.webp`],
      'the files of the one upload, none of the others',
    );
  });

  it('never shares an upload with another account: the same bytes from another account are a separate upload', async () => {
    const a = await account(stack.baseUrl);
    const b = await account(stack.baseUrl);
    const png = await F.crispLogo(1000, 1200);
    const ua = await upload(a, png);
    const ub = await upload(b, png);
    assert.equal(ua.status, 201, ua.text);
    assert.equal(ub.status, 201, ub.text);
    assert.notEqual(ub.body.id, ua.body.id);
    assert.notEqual(ub.body.url, ua.body.url);
    assert.equal(await storageUsed(stack.sql, b.userId), rowBytes((await rows(b.userId))[0]!));
    assert.equal(await storageUsed(stack.sql, a.userId), await storageUsed(stack.sql, b.userId));
    for (const u of [ua, ub]) assert.equal((await fetch(u.body.url)).status, 200);
  });

  it("sizes existing uploads' prepared levels in the migration as the upload does", async () => {
    // the migration's backfill, run and rolled back: it must leave the sizes recorded for this file's uploads
    // (levels or none, several sizes) as they are
    const migration = readFileSync(path.join(__dirname, '../../db/migrations/011_storage_quota.sql'), 'utf8');
    const backfill = /update uploads u set levels_bytes[\s\S]*?;/.exec(migration)![0];
    const { changed, withLevels } = await levelsBackfillDryRun(backfill, mine);
    assert.ok(withLevels >= 5);
    assert.deepEqual(changed, []);
  });

  describe('retention of prepared levels (maintenance sweep)', () => {
    let acct: Account;
    let garment: any;
    before(async () => {
      acct = await account(stack.baseUrl);
      const list = await http(stack.baseUrl, 'GET', '/api/v1/garments?category=t-shirts&limit=1', { key: acct.key });
      garment = list.body.garments[0];
    });

    const generate = async (designUrl: string) => {
      const res = await http(stack.baseUrl, 'POST', '/api/v1/generate', {
        key: acct.key,
        json: {
          designUrl,
          garmentId: garment.id,
          garmentImageUrl: garment.colors[0].imageUrl,
          placement: { x: 50, y: 45, scale: 0.6, rotation: 5 },
        },
      });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.status, 'completed', res.text);
      return Buffer.from(await (await fetch(res.body.mockupUrl)).arrayBuffer());
    };
    const sweep = () =>
      stack.client.workflow.execute(maintenanceSweep, {
        workflowId: `storage-sweep-test-${randomSuffix(6)}`,
        taskQueue: stack.taskQueue,
      });
    const levelsOf = uploadSize;

    it('deletes levels no generation used for 30 days, gives their bytes back, and the design still renders the same', async () => {
      const png = pngVariant(await F.crispLogo(1600, 2000), `retention-${randomSuffix(6)}`);
      const up = await upload(acct, png);
      assert.equal(up.status, 201, up.text);
      const levelsKey = preparedKey(keyOf(up.body.url));
      const before = await generate(up.body.url);
      const { levelsBytes } = await levelsOf(up.body.id);
      assert.ok(levelsBytes > 0);
      const used = await storageUsed(stack.sql, acct.userId);

      // last used 31 days ago
      await backdateUpload(up.body.id, { created: '40 days', levelsUsed: '31 days' });
      const result = await sweep();
      assert.ok(result.storage.levelsExpired >= 1, JSON.stringify(result));
      assert.ok(result.storage.bytesReleased >= levelsBytes, JSON.stringify(result));
      assert.equal(await stack.storage.exists(levelsKey), false, 'the levels file is deleted');
      assert.equal((await levelsOf(up.body.id)).levelsBytes, 0);
      assert.equal(await storageUsed(stack.sql, acct.userId), used - levelsBytes, 'their bytes are released');
      assert.equal(await stack.storage.exists(keyOf(up.body.url)), true, 'the original stays');

      // a second sweep releases nothing twice
      await sweep();
      assert.equal(await storageUsed(stack.sql, acct.userId), used - levelsBytes);

      // the worker decodes the original (nothing cached in this process), to the same mockup
      configureDesignCache({ clear: true });
      const after = await generate(up.body.url);
      assert.ok(after.equals(before), 'the mockup after the levels were deleted differs');
    });

    it('keeps the levels of an old upload a generation used recently, and of a recent one never used', async () => {
      const old = await upload(acct, pngVariant(await F.crispLogo(1000, 1200), `old-${randomSuffix(6)}`));
      const fresh = await upload(acct, pngVariant(await F.crispLogo(1000, 1200), `fresh-${randomSuffix(6)}`));
      assert.equal(old.status, 201, old.text);
      assert.equal(fresh.status, 201, fresh.text);
      await backdateUpload(old.body.id, { created: '60 days' });
      // the generation records the use
      await generate(old.body.url);
      const used = await levelsOf(old.body.id);
      assert.ok(
        used.levelsUsedAt && Date.now() - used.levelsUsedAt.getTime() < 3600_000,
        'the generation recorded the use',
      );
      await sweep();
      for (const u of [old, fresh]) {
        assert.ok((await levelsOf(u.body.id)).levelsBytes > 0);
        assert.equal(await stack.storage.exists(preparedKey(keyOf(u.body.url))), true);
      }
    });

    it("corrects an account's total left wrong (a crash between reservation and row) once the account is quiet", async () => {
      const quiet = await account(stack.baseUrl);
      const busy = await account(stack.baseUrl);
      for (const a of [quiet, busy]) assert.equal((await upload(a, await F.crispLogo(600, 750))).status, 201);
      const actual = rowBytes((await rows(quiet.userId))[0]!);
      await skewStorageUsage(quiet.userId, 5_000_000, '2 hours');
      await skewStorageUsage(busy.userId, 5_000_000);
      const result = await sweep();
      assert.ok(result.storage.usageCorrected >= 1, JSON.stringify(result));
      assert.equal(await storageUsed(stack.sql, quiet.userId), actual);
      assert.equal(
        await storageUsed(stack.sql, busy.userId),
        rowBytes((await rows(busy.userId))[0]!) + 5_000_000,
        'an account changed within the hour may have an upload in flight: left alone',
      );
    });
  });
});
