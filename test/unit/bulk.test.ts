// Bulk renders' pure parts (issue 35): the archive's entry names, and the compositing gate's background lane (a
// waiting foreground task goes first; background tasks hold at most their share while foreground work is about,
// every slot when none is).
import assert from 'node:assert/strict';
import { archiveEntryNames, designNameOf, namePart } from '../../lib/bulk/names';
import { FOREGROUND_RECENT_MS, Gate } from '../../lib/gate';
import { sleep } from '../helpers/wait';

/** A task that runs until released, recording its start. */
function held(log: string[], name: string) {
  let release!: () => void;
  const done = new Promise<void>((r) => (release = r));
  return {
    run: async () => {
      log.push(name);
      await done;
    },
    release: () => release(),
  };
}
const tick = () => new Promise((r) => setImmediate(r));

describe('bulk archive entry names', () => {
  it('are <design>-<garment>-<colour>-<zone>.jpg, lower case with dashes, a repeated name numbered', () => {
    assert.equal(namePart('  Sport Grey / Heather!  '), 'sport-grey-heather');
    assert.equal(namePart('Café Crème'), 'cafe-creme');
    assert.equal(namePart('***'), 'x');
    assert.equal(designNameOf('https://x.test/files/uploads/upl_1_a.png', 'Team Crest'), 'team-crest');
    assert.equal(designNameOf('https://x.test/art/Green%20Star.png'), 'green-star');
    assert.equal(designNameOf('https://x.test/'), 'design');
    assert.deepEqual(
      archiveEntryNames([
        { design: 'logo', garmentId: 'gildan-5000', color: 'Sport Grey', zone: 'left-chest' },
        { design: 'logo', garmentId: 'gildan-5000', color: 'Black', zone: 'front' },
        { design: 'logo', garmentId: 'gildan-5000', color: 'Sport Grey', zone: 'left-chest' },
        { design: 'logo', template: 'Mug on a Desk', smartObject: 'Design Here' },
        { design: 'logo', template: 'Mug on a Desk', smartObject: 'Design Here' },
      ]),
      [
        'logo-gildan-5000-sport-grey-left-chest.jpg',
        'logo-gildan-5000-black-front.jpg',
        'logo-gildan-5000-sport-grey-left-chest-2.jpg',
        'logo-mug-on-a-desk-design-here.jpg',
        'logo-mug-on-a-desk-design-here-2.jpg',
      ],
    );
  });
});

describe('compositing gate: the background lane', () => {
  it('uses every slot for background work when no foreground task is about', async () => {
    let now = 0;
    const gate = new Gate(4, Infinity, 0.5, () => now);
    const log: string[] = [];
    const tasks = [1, 2, 3, 4, 5].map((i) => held(log, `b${i}`));
    const runs = tasks.map((t) => gate.run(t.run, { background: true }));
    await tick();
    assert.deepEqual(log, ['b1', 'b2', 'b3', 'b4']);
    tasks[0]!.release();
    await runs[0];
    await tick();
    assert.deepEqual(log, ['b1', 'b2', 'b3', 'b4', 'b5']);
    for (const t of tasks) t.release();
    await Promise.all(runs);
    now += 1;
  });

  it('lets a waiting foreground task go first and holds background work to its share while foreground is about', async () => {
    let now = 0;
    const gate = new Gate(4, Infinity, 0.5, () => now);
    const log: string[] = [];
    const bg = [1, 2, 3, 4, 5, 6].map((i) => held(log, `b${i}`));
    const bgRuns = bg.map((t) => gate.run(t.run, { background: true }));
    await tick();
    assert.deepEqual(log, ['b1', 'b2', 'b3', 'b4']);
    // a single generate arrives: it waits for the first free slot, ahead of b5 and b6
    const fg = held(log, 'f1');
    const fgRun = gate.run(fg.run);
    await tick();
    assert.equal(gate.queued, 3);
    bg[0]!.release();
    await bgRuns[0];
    await tick();
    assert.deepEqual(log.slice(4), ['f1']);
    // foreground work is about: background holds at most 2 of the 4 slots (b2, b3, b4 still run, so none starts)
    bg[1]!.release();
    bg[2]!.release();
    await Promise.all([bgRuns[1], bgRuns[2]]);
    await tick();
    assert.deepEqual(log.slice(5), ['b5']);
    assert.equal(gate.inFlight, 3); // f1, b4, b5
    // once foreground work has not been seen for FOREGROUND_RECENT_MS, background takes every slot again
    fg.release();
    await fgRun;
    now += FOREGROUND_RECENT_MS + 1;
    bg[3]!.release();
    await bgRuns[3];
    await tick();
    assert.deepEqual(log.slice(6), ['b6']);
    for (const t of bg) t.release();
    await Promise.all(bgRuns);
    assert.equal(gate.inFlight, 0);
  });

  it('rests after each background task as long as it ran while foreground work is about', async () => {
    let now = 0;
    const gate = new Gate(4, Infinity, 0.25, () => now);
    const log: string[] = [];
    const fg = held(log, 'f1');
    const fgRun = gate.run(fg.run); // foreground seen at t=0
    const b1 = held(log, 'b1');
    const b2 = held(log, 'b2');
    const r1 = gate.run(b1.run, { background: true });
    const r2 = gate.run(b2.run, { background: true });
    await tick();
    assert.deepEqual(log, ['f1', 'b1']); // one background slot of four while f1 is about
    now = 100;
    b1.release();
    await r1;
    await tick();
    assert.deepEqual(log, ['f1', 'b1'], 'b1 ran 100 ms: the lane rests until t=200');
    now = 200;
    await sleep(150); // the rest's timer (100 ms) looks again
    assert.deepEqual(log, ['f1', 'b1', 'b2']);
    fg.release();
    b2.release();
    await Promise.all([fgRun, r2]);
  });
});
