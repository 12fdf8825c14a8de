// The workflows bundled with webpack in a child process of their own: what webpack, its loaders and swc (native)
// leave behind in a process stays resident for good (~100 MiB: V8's grown heap, glibc's arenas, the mapped swc
// binaries), so the worker only receives the bundle's code. docs/benchmarks.md, "The worker's memory at startup".
import { fork } from 'node:child_process';
import {
  bundleWorkflowCode,
  type Logger,
  type LogLevel,
  type LogMetadata,
  type WorkflowBundle,
} from '@temporalio/worker';

/** What the worker asks for: the workflows' module and the workflow interceptor modules to bundle with them. */
interface BundleRequest {
  workflowsPath: string;
  workflowInterceptorModules: string[];
}

/** What the child sends back: the bundler's log lines, then the code or why it failed. */
type FromChild =
  { log: { level: LogLevel; message: string; meta?: LogMetadata } } | { code: string } | { error: string };

/**
 * Bundles the workflows in a child node (the same flags as this process, so tsx too) and returns the bundle; the
 * bundler's log lines go to `logger` as if it had run here. Rejects when the child fails or exits without a bundle.
 */
export function bundleWorkflowsApart(request: BundleRequest, logger: Logger): Promise<WorkflowBundle> {
  return new Promise((resolve, reject) => {
    const child = fork(__filename, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      fn();
    };
    child.on('message', (msg: FromChild) => {
      if ('log' in msg) logger.log(msg.log.level, msg.log.message, msg.log.meta);
      else if ('code' in msg) settle(() => resolve({ code: msg.code }));
      else settle(() => reject(new Error(`bundling the workflows failed: ${msg.error}`)));
    });
    child.once('error', (err) => settle(() => reject(err)));
    child.once('exit', (code, signal) =>
      settle(() => reject(new Error(`the workflow bundler exited without a bundle (code ${code}, signal ${signal})`))),
    );
    child.send(request);
  });
}

/** The child: one request, its log lines and its bundle, then exit (also when the worker goes away). */
function serveOneBundle(): void {
  const send = (msg: FromChild) => new Promise<void>((done) => process.send!(msg, () => done()));
  const logAs =
    (level: LogLevel) =>
    (message: string, meta?: LogMetadata): void =>
      void send({ log: { level, message, ...(meta ? { meta } : {}) } });
  const logger: Logger = {
    log: (level, message, meta) => logAs(level)(message, meta),
    trace: logAs('TRACE'),
    debug: logAs('DEBUG'),
    info: logAs('INFO'),
    warn: logAs('WARN'),
    error: logAs('ERROR'),
  };
  process.once('disconnect', () => process.exit(1));
  process.once('message', (request: BundleRequest) => {
    bundleWorkflowCode({ ...request, logger })
      .then(
        (bundle) => send({ code: bundle.code }),
        (err: unknown) => send({ error: String((err as Error)?.stack ?? err) }),
      )
      .finally(() => process.exit(0));
  });
}

if (require.main === module && process.send) serveOneBundle();
