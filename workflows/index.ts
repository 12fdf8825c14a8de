// Every workflow the worker runs. Only deterministic orchestration lives here; I/O is in activities/.
export { generation } from './generation';
export { chatJobsSweep, inboundEventsSweep, maintenanceSweep } from './maintenance';
export { webhookDelivery } from './webhook-delivery';
export { generationBatch } from './generation-batch';
export { publishProduct, shopifyWebhook, fulfillment } from './storefront';
export { production } from './production';
export { stripeEvent } from './payments';
export { chatDesign } from './chat';
export { accountsSweep, sendMail } from './mail';
export { accountDeletion } from './account-deletion';
export { templateImport } from './template-import';
export { bulkRender } from './bulk';
export { uploadAnalysis } from './upload-analysis';
