// The entry names of a bulk's archive (issue 35): `<design>-<garment>-<colour>-<zone>.jpg`, and on a template
// `<design>-<template name>-<smart object name>.jpg`. Pure.

/** A part of an archive entry name: lower case letters, digits and dashes (at most 60), never empty. */
export function namePart(s: string): string {
  const part = s
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/g, '');
  return part || 'x';
}

/** The design's name for archive entries: an upload's own name, else the URL's file name without its extension. */
export function designNameOf(url: string, uploadName?: string): string {
  if (uploadName) return namePart(uploadName);
  let file = url;
  try {
    file = decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '');
  } catch {
    // not a URL: the string as is
  }
  return namePart(file.replace(/\.[A-Za-z0-9]{1,5}$/, '') || 'design');
}

/** One item of a bulk as its archive entry is named: on a garment's colour and zone, or in a template's smart object. */
export type NamedItem =
  | { design: string; garmentId: string; color: string; zone: string }
  | { design: string; template: string; smartObject: string };

/**
 * The archive's entry names, `<design>-<garment>-<colour>-<zone>.jpg` (on a template
 * `<design>-<template>-<smart object>.jpg`), in order; a name met again (two designs of the same name) gets `-2`,
 * `-3`... before `.jpg`, so no entry hides another.
 */
export function archiveEntryNames(items: NamedItem[]) {
  const seen = new Map<string, number>();
  return items.map((it) => {
    const parts =
      'template' in it
        ? [it.design, namePart(it.template), namePart(it.smartObject)]
        : [it.design, namePart(it.garmentId), namePart(it.color), namePart(it.zone)];
    const base = parts.join('-');
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    return n === 1 ? `${base}.jpg` : `${base}-${n}.jpg`;
  });
}
