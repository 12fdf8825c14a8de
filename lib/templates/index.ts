// The templates engine: a customer's Photoshop mockup (PSD/PSB with smart objects) parsed, prepared once, and
// rendered with designs in its smart objects as Photoshop would. Pure code: no app imports, no I/O.
export { parseTemplate, type ParsedTemplate } from './parse';
export { prepareTemplate, type PreparedTemplate } from './prepare';
export { serializePrepared, deserializePrepared } from './serialize';
export { renderTemplate, renderOwnContent, psnr, designSize } from './render';
export type * from './types';
export { designTarget, renderPlan, renderTemplateRgb, type RenderPlan, type RgbRender } from './fast';
export { renderTemplateOrderedRgb } from './ordered';
export { levelsBytes, type DesignLevels, type LevelsCache } from './paint';
