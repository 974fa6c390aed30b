export * from './catalog.ts';
export * from './completion.ts';
export * from './control.ts';
export * from './routing.ts';
export * from './workflows.ts';
