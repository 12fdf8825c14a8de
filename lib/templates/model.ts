// The engine's own picture of a template: the layer tree with the pixels it needs (plain data), and each smart
// object's geometry and content. Built by parse.ts, cropped and flattened by prepare.ts, drawn by composite.ts.
import type { Geometry } from './geometry';
import type { RawImage, SmartObjectInfo } from './types';

/** Pixel bytes: RGBA (straight alpha) or one channel. */
export type Bytes = Uint8Array | Uint8ClampedArray;

/** An RGBA (straight alpha) or single-channel block placed at (x, y) of its frame (document or region). */
export interface Block {
  x: number;
  y: number;
  w: number;
  h: number;
  data: Bytes;
}

/** A layer mask: coverage 0..255 inside the block, `def` outside it. */
export interface MaskBlock extends Block {
  def: number;
}

interface NodeBase {
  name: string;
  mode: string;
  /** 0..1 */
  opacity: number;
  /** fill opacity 0..1 */
  fill: number;
  /** clipped to the nearest unclipped layer below */
  clip: boolean;
  hidden: boolean;
  mask: MaskBlock | null;
}

export type TNode =
  | (NodeBase & { kind: 'pixels'; img: Block | null })
  | (NodeBase & { kind: 'group'; passThrough: boolean; children: TNode[] })
  /** `img` = the pixels Photoshop stored for the layer (used where the engine cannot render it itself) */
  | (NodeBase & { kind: 'smart'; so: number; img: Block | null });

export interface DisplaceFilter {
  horizontalScale: number;
  verticalScale: number;
  /** the map (RGBA) when the file carries it; red drives x, green y, as Photoshop's Displace filter */
  map: RawImage | null;
  /** how the map covers the layer: stretched over it (default) or tiled from its corner */
  tile?: boolean;
}

export interface SmartData {
  info: SmartObjectInfo;
  geometry: Geometry;
  /** the embedded content (decoded), null when it is missing or a format the engine does not decode */
  content: RawImage | null;
  /** own-content renders use Photoshop's stored pixels (smart filters, unreadable content) */
  useStored: boolean;
  displace: DisplaceFilter | null;
}
