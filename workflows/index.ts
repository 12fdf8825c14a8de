// Every workflow the worker runs. Only deterministic orchestration lives here; I/O is in activities/.
export { maintenanceSweep } from './maintenance';
