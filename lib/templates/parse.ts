// Reading a PSD/PSB with ag-psd into the engine's model: the layer tree (hidden layers kept, flagged), every smart
// object with its geometry, embedded content and filters, and the list of what the engine does not render itself.
import { initializeCanvas, readPsd, type Layer, type Psd } from 'ag-psd';
import { BadInputError } from '../errors';
import { compositeList, maskOver } from './composite';
import { decodeEmbedded, kindOf, to8bit } from './decode';
import { isIdentityMesh, meshBox, type Geometry, type Warp } from './geometry';
import type { Block, MaskBlock, SmartData, TNode } from './model';
import { paintOwn } from './paint';
import { rasterizeVectorMask, type VectorPath } from './vector';
import type { PrintSize, Quad, RawImage, SmartObjectInfo, UnsupportedFeature } from './types';

export interface ParsedTemplate {
  width: number;
  height: number;
  smartObjects: SmartObjectInfo[];
  unsupported: UnsupportedFeature[];
  photoshopComposite: RawImage | null;
  /** engine-internal: the layer tree, bottom first */
  root: TNode[];
  /** engine-internal: per smart object (same order as smartObjects) */
  smart: SmartData[];
}

let canvasReady = false;
function ensureCanvas(): void {
  if (canvasReady) return;
  // pixel data only (useImageData): ag-psd still asks for a factory; no canvas package is used
  initializeCanvas(
    () => {
      throw new Error('no canvas in the templates engine');
    },
    (width: number, height: number) => ({ width, height, data: new Uint8ClampedArray(width * height * 4) }) as never,
  );
  canvasReady = true;
}

const num = (v: { value: number } | undefined, d: number) => (v ? v.value : d);

/** A smart object's physical size from its content's resolution (ag-psd `placedLayer.resolution`, "Density" = ppi). */
function printSizeOf(res: { units: string; value: number } | undefined, w: number, h: number): PrintSize | null {
  if (!res || res.units !== 'Density' || !(res.value > 0) || !Number.isFinite(res.value)) return null;
  const inches = (px: number) => Math.round((px / res.value) * 1000) / 1000;
  return { widthIn: inches(w), heightIn: inches(h), ppi: res.value };
}

function quadOf(t: number[]): Quad {
  return [
    [t[0]!, t[1]!],
    [t[2]!, t[3]!],
    [t[4]!, t[5]!],
    [t[6]!, t[7]!],
  ];
}

function warpOf(layer: Layer, cw: number, ch: number): { warp: Warp; style: string } {
  const w = layer.placedLayer?.warp;
  const style = w?.style ?? 'none';
  if (!w || style === 'none') return { warp: { kind: 'none' }, style: 'none' };
  const left = num(w.bounds?.left, 0);
  const top = num(w.bounds?.top, 0);
  const right = num(w.bounds?.right, cw);
  const bottom = num(w.bounds?.bottom, ch);
  if (style === 'custom') {
    const env = w.customEnvelopeWarp;
    if (!env || env.meshPoints.length < 16) return { warp: { kind: 'none' }, style: 'none' };
    const toX = (v: number) => ((v - left) / (right - left || 1)) * cw;
    const toY = (v: number) => ((v - top) / (bottom - top || 1)) * ch;
    const sx = [0, ...(env.quiltSliceX ?? []).slice(1, -1).map(toX), cw];
    const sy = [0, ...(env.quiltSliceY ?? []).slice(1, -1).map(toY), ch];
    // quilt slices (when given) list every patch boundary, ends included
    const cols = 3 * sx.length - 2;
    const rows = 3 * sy.length - 2;
    if (cols * rows !== env.meshPoints.length) {
      const n = Math.round(Math.sqrt(env.meshPoints.length));
      if (n * n !== env.meshPoints.length) return { warp: { kind: 'none' }, style: 'custom' };
    }
    const points: number[] = [];
    for (const p of env.meshPoints) points.push(toX(p.x), toY(p.y));
    // mesh points are in bounds space; keep them in content space (the box maps either to the quad)
    if (isIdentityMesh(points, sx, sy)) return { warp: { kind: 'none' }, style: 'none' };
    return { warp: { kind: 'mesh', points, sx, sy }, style: 'custom' };
  }
  return {
    warp: {
      kind: 'named',
      style,
      bend: (w.value ?? 0) / 100,
      hDist: (w.perspective ?? 0) / 100,
      vDist: (w.perspectiveOther ?? 0) / 100,
      vertical: w.rotate === 'vertical',
      bounds: [left, top, right - left, bottom - top],
      values: w.values,
    },
    style,
  };
}

function blockOf(l: Layer): Block | null {
  if (!l.imageData) return null;
  const w = (l.right ?? 0) - (l.left ?? 0);
  const h = (l.bottom ?? 0) - (l.top ?? 0);
  if (w <= 0 || h <= 0 || l.imageData.width !== w) return null;
  return { x: l.left ?? 0, y: l.top ?? 0, w, h, data: to8bit(l.imageData.data, w, h) };
}

function maskOf(l: Layer): MaskBlock | null {
  const m = l.mask;
  if (!m || m.disabled) return null;
  const x = m.left ?? 0;
  const y = m.top ?? 0;
  const w = (m.right ?? 0) - x;
  const h = (m.bottom ?? 0) - y;
  // density < 1 lets the masked-out part show through: v' = 255 - density x (255 - v)
  const density = (m.fromVectorData ? m.vectorMaskDensity : m.userMaskDensity) ?? 1;
  const dens = (v: number) => (density >= 1 ? v : Math.round(255 - density * (255 - v)));
  const def = dens(m.defaultColor ?? 255);
  if (!m.imageData || w <= 0 || h <= 0)
    return def === 255 ? null : { x: 0, y: 0, w: 0, h: 0, data: new Uint8Array(0), def };
  const src = m.imageData.data;
  const data = new Uint8Array(w * h);
  // ag-psd hands masks over as RGBA (the value in every channel) or as one channel
  const stride = src.length >= w * h * 4 ? 4 : 1;
  for (let i = 0; i < w * h; i++) data[i] = dens(src[i * stride]!);
  return { x, y, w, h, data, def };
}

function effectsOn(l: Layer): string[] {
  const e = l.effects;
  if (!e || e.disabled) return [];
  const out: string[] = [];
  for (const [k, v] of Object.entries(e)) {
    if (k === 'disabled' || k === 'scale' || !v) continue;
    const list = Array.isArray(v) ? v : [v];
    if (list.some((x: { enabled?: boolean }) => x && x.enabled !== false)) out.push(`layer style: ${k}`);
  }
  return out;
}

/** Embedded documents inside embedded documents are rendered this deep; deeper ones use their stored composite. */
export const MAX_NESTING = 3;

/** The layer's vector mask rasterized (over its pixels' rectangle, or the document for groups and smart objects),
 * multiplied with its raster mask when it has both. */
function withVectorMask(l: Layer, raster: MaskBlock | null, docW: number, docH: number): MaskBlock {
  const vm = l.vectorMask!;
  const px = !l.children && !l.placedLayer && l.imageData && (l.right ?? 0) > (l.left ?? 0);
  const r = px
    ? { x: l.left ?? 0, y: l.top ?? 0, w: (l.right ?? 0) - (l.left ?? 0), h: (l.bottom ?? 0) - (l.top ?? 0) }
    : { x: 0, y: 0, w: docW, h: docH };
  const m = rasterizeVectorMask(vm.paths as VectorPath[], !!vm.invert, !!vm.fillStartsWithAllPixels, r);
  if (!raster) return m;
  const rm = maskOver(raster, r.x, r.y, r.w, r.h);
  for (let i = 0; i < m.data.length; i++) m.data[i] = Math.round((m.data[i]! * rm[i]!) / 255);
  return { ...m, def: Math.round((m.def * raster.def) / 255) };
}

export function parseTemplate(psdBytes: Buffer | Uint8Array, depth = 0): ParsedTemplate {
  ensureCanvas();
  let psd: Psd;
  try {
    psd = readPsd(psdBytes, {
      useImageData: true,
      skipThumbnail: true,
      skipCompositeImageData: depth > 0 && depth < MAX_NESTING,
    });
  } catch (err) {
    throw new BadInputError(`not a readable PSD/PSB file: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!psd.width || !psd.height) throw new BadInputError('the PSD has no canvas size');
  const unsupported: UnsupportedFeature[] = [];
  const note = (layer: string, feature: string) => unsupported.push({ layer, feature });
  if (psd.colorMode !== undefined && psd.colorMode !== 3)
    note('(document)', `colour mode ${psd.colorMode} (rendered as RGB)`);
  if ((psd.bitsPerChannel ?? 8) !== 8)
    note('(document)', `${psd.bitsPerChannel} bits per channel (rendered in 8 bits)`);
  const linked = new Map((psd.linkedFiles ?? []).map((f) => [f.id, f]));
  const smart: SmartData[] = [];
  const decoded = new Map<string, RawImage | null>();

  const toNode = (l: Layer): TNode => {
    const name = l.name ?? '';
    const base = {
      name,
      mode: l.blendMode ?? 'normal',
      opacity: l.opacity ?? 1,
      fill: l.fillOpacity ?? 1,
      clip: !!l.clipping,
      hidden: !!l.hidden,
      mask: maskOf(l),
    };
    if (!base.hidden) for (const f of effectsOn(l)) note(name, f);
    // a shape or fill layer's stored pixels already are its shape; other layers are cut by their vector mask (the
    // raster Photoshop stored for it when present, `mask.fromVectorData`; else rasterized here)
    if (l.vectorMask && !l.vectorMask.disable && !base.hidden && !l.vectorFill && !l.mask?.fromVectorData)
      base.mask = withVectorMask(l, base.mask, psd.width, psd.height);
    if (l.children) {
      const passThrough = base.mode === 'pass through';
      return {
        ...base,
        mode: passThrough ? 'normal' : base.mode,
        kind: 'group',
        passThrough,
        children: l.children.map(toNode),
      };
    }
    if (!base.hidden && l.adjustment) note(name, `adjustment layer: ${l.adjustment.type}`);
    const pl = l.placedLayer;
    if (pl) return { ...base, kind: 'smart', so: smartOf(l, base.hidden), img: blockOf(l) };
    return { ...base, kind: 'pixels', img: blockOf(l) };
  };

  const smartOf = (l: Layer, hidden: boolean): number => {
    const pl = l.placedLayer!;
    const name = l.name ?? '';
    const file = linked.get(pl.id);
    let content: RawImage | null = null;
    if (file?.data) {
      if (!decoded.has(pl.id))
        decoded.set(
          pl.id,
          decodeEmbedded(file.data, depth < MAX_NESTING ? (d) => renderNested(d, depth + 1) : undefined),
        );
      content = decoded.get(pl.id)!;
    }
    let useStored = false;
    if (!content) {
      useStored = true;
      if (!hidden)
        note(
          name,
          file?.data
            ? `embedded ${kindOf(file.data)} content not decoded (Photoshop's pixels used)`
            : "linked file outside the PSD (Photoshop's pixels used)",
        );
    }
    const cw = pl.width ?? content?.width ?? 1;
    const ch = pl.height ?? content?.height ?? 1;
    const { warp, style } = warpOf(l, cw, ch);
    const t = pl.nonAffineTransform && pl.nonAffineTransform.length === 8 ? pl.nonAffineTransform : pl.transform;
    const quad = quadOf(t);
    const geo0 = { width: cw, height: ch, warp };
    const geometry: Geometry = { ...geo0, box: meshBox(geo0), quad };
    let displace: SmartData['displace'] = null;
    for (const f of pl.filter?.enabled === false ? [] : (pl.filter?.list ?? [])) {
      if (f.enabled === false) continue;
      if (f.type === 'displace') {
        const name = f.filter.displacementFile.path.split(/[\\/]/).pop();
        const mapFile = (psd.linkedFiles ?? []).find((x) => x.name === name && x.data);
        displace = {
          horizontalScale: f.filter.horizontalScale,
          verticalScale: f.filter.verticalScale,
          map: mapFile?.data ? decodeEmbedded(mapFile.data) : null,
          tile: f.filter.displacementMap === 'tile',
        };
        if (!displace.map && !hidden)
          note(name ?? 'displace', 'displacement map file not embedded (auto displacement used)');
      } else {
        useStored = true;
        if (!hidden) note(l.name ?? '', `smart filter: ${f.type} (Photoshop's pixels used for its own content)`);
      }
    }
    const info: SmartObjectInfo = {
      id: String(smart.length + 1),
      name,
      width: cw,
      height: ch,
      quad,
      warp: style,
      blendMode: l.blendMode ?? 'normal',
      printSize: printSizeOf(pl.resolution, cw, ch),
    };
    smart.push({ info, geometry, content, useStored, displace });
    return smart.length - 1;
  };

  const root = (psd.children ?? []).map(toNode);
  const photoshopComposite = psd.imageData
    ? { width: psd.width, height: psd.height, data: to8bit(psd.imageData.data, psd.width, psd.height) }
    : null;
  return {
    width: psd.width,
    height: psd.height,
    smartObjects: smart.map((s) => s.info),
    unsupported,
    photoshopComposite,
    root,
    smart,
  };
}

/** An embedded PSD/PSB drawn from its own layers with this engine (null when it has none: use its composite). */
function renderNested(data: Uint8Array, depth: number): RawImage | null {
  const t = parseTemplate(data, depth);
  if (!t.root.some((n) => !n.hidden)) return null;
  const out = new Uint8ClampedArray(t.width * t.height * 4);
  compositeList(t.root, { x: 0, y: 0, w: t.width, h: t.height }, out, (so, node, f) =>
    paintOwn(t.smart[so]!, node.img, f),
  );
  return { width: t.width, height: t.height, data: Buffer.from(out.buffer, out.byteOffset, out.byteLength) };
}
