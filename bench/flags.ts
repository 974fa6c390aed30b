// The benchmarks' command lines: `--name value` or `--name=value`, bare switches, a lone
// `--` ignored, `--help` printing the usage; anything else is a UsageError naming it, with
// the usage after it.

/** A mistake in the command line: reported as its message, without a stack. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export function readFlags(argv: string[], usage: string, opts: { known: string[]; switches?: string[] }): { flags: Map<string, string>; switches: Set<string> } {
  const flags = new Map<string, string>();
  const switches = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') continue;
    if (a === '--help' || a === '-h') {
      console.log(usage);
      process.exit(0);
    }
    if (!a.startsWith('--')) throw new UsageError(`unexpected argument ${a}\n${usage}`);
    const eq = a.indexOf('=');
    const name = eq < 0 ? a.slice(2) : a.slice(2, eq);
    if (opts.switches?.includes(name)) {
      switches.add(name);
      continue;
    }
    const value = eq < 0 ? argv[++i] : a.slice(eq + 1);
    if (value === undefined) throw new UsageError(`--${name} needs a value\n${usage}`);
    flags.set(name, value);
  }
  for (const k of flags.keys()) if (!opts.known.includes(k)) throw new UsageError(`unknown option --${k}\n${usage}`);
  return { flags, switches };
}
