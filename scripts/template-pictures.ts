// Pictures for docs/templates.md: the synthetic perspective template with its own content, and with a design
// placed in its smart object (the layers above, shadow and highlight, over it).
//   node --import tsx scripts/template-pictures.ts
import path from 'node:path';
import sharp from 'sharp';
import { parseTemplate, prepareTemplate, renderOwnContent, renderTemplate, type RawImage } from '../lib/templates';
import { perspectiveTemplatePsd, testDesign } from '../test/helpers/template-psd';

const OUT = path.join(__dirname, '../docs/images');

async function save(img: RawImage, name: string): Promise<void> {
  await sharp(img.data, { raw: { width: img.width, height: img.height, channels: 4 } })
    .png({ compressionLevel: 9 })
    .toFile(path.join(OUT, name));
}

async function main(): Promise<void> {
  const p = prepareTemplate(parseTemplate(perspectiveTemplatePsd()));
  await save(renderOwnContent(p), 'template-perspective-own.png');
  const design = testDesign();
  await save(
    renderTemplate(p, [{ smartObjectId: p.smartObjects[0]!.id, design }], { displace: 'off' }),
    'template-perspective-design.png',
  );
  await save(design, 'template-design.png');
}

void main();
