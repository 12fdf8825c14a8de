// Types of no-cycle.mjs for the tests that call it.
import type { Rule } from 'eslint';

export function resolveSpecifier(from: string, specifier: string): string | null;
export function referencesOf(file: string, text: string): { target: string; specifier: string; pos: number }[];
export function cyclesAmong(files: string[]): string[][];
export const noCycle: Rule.RuleModule;
