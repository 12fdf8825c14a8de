// The lint tests' one way to ask ESLint: a text linted as if it were a file of the project, through the project's own
// configuration (eslint.config.mjs), one ESLint instance for the run.
import path from 'node:path';
import { ESLint } from 'eslint';

export const ROOT = path.resolve(__dirname, '../..');

let instance: ESLint | undefined;
export const eslint = (): ESLint => (instance ??= new ESLint({ cwd: ROOT }));

/** The errors of `code` linted as the (existing) file `file`, each with its rule id. */
export async function lintErrors(file: string, code: string): Promise<{ ruleId: string | null; message: string }[]> {
  const [result] = await eslint().lintText(code, { filePath: path.join(ROOT, file) });
  return result!.messages.filter((m) => m.severity === 2).map((m) => ({ ruleId: m.ruleId, message: m.message }));
}

/** The messages of the rule `ruleId` among the errors of `code` linted as the (existing) file `file`. */
export async function ruleErrors(ruleId: string, file: string, code: string): Promise<string[]> {
  return (await lintErrors(file, code)).filter((e) => e.ruleId === ruleId).map((e) => e.message);
}
