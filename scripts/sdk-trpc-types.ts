// Writes packages/sdk/src/trpc/app-router.gen.ts from the server's AppRouter
// (apps/api/src/trpc/router.ts), so the SDK's tRPC client is typed by the router itself
// and the published declarations hold no server code. The compiler reads each procedure's
// input and (JSON-serialized) output type and prints it structurally; the file rebuilds
// the router's client-facing type from tRPC's own types, without the server's context.
//   node scripts/sdk-trpc-types.ts          rewrites the file
//   node scripts/sdk-trpc-types.ts --check  exits 1 when the file is not current
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

const root = join(import.meta.dirname, '..');
export const trpcTypesPath = join(root, 'packages', 'sdk', 'src', 'trpc', 'app-router.gen.ts');
const probePath = join(root, 'apps', 'api', 'src', 'trpc', '__sdk-types-probe.ts');

// The probe exists only in the compiler's memory: it names what the generator reads.
const probe = `import type { AppRouter } from './router.ts';
import type { inferRouterOutputs } from '@trpc/server';
export declare const record: AppRouter['_def']['record'];
export declare const outputs: inferRouterOutputs<AppRouter>;
export declare const errorShape: AppRouter['_def']['_config']['$types']['errorShape'];
`;

function program(): ts.Program {
  const configFile = ts.readConfigFile(join(root, 'tsconfig.json'), ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(configFile.config, ts.sys, root);
  const host = ts.createCompilerHost(parsed.options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (file, lang, onError, create) => (file === probePath ? ts.createSourceFile(file, probe, lang) : getSourceFile(file, lang, onError, create));
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (file) => file === probePath || fileExists(file);
  return ts.createProgram({ rootNames: [probePath], options: { ...parsed.options, noEmit: true }, host });
}

const IDENT = /^[A-Za-z_$][\w$]*$/;
const key = (name: string): string => (IDENT.test(name) ? name : JSON.stringify(name));

/** Prints a type as a structural TypeScript type, expanding every named type down to primitives. */
function printer(checker: ts.TypeChecker) {
  const stack = new Set<ts.Type>();
  const print = (t: ts.Type, indent: string): string => {
    const f = t.flags;
    if (f & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return 'unknown';
    if (f & (ts.TypeFlags.StringLike | ts.TypeFlags.NumberLike | ts.TypeFlags.BooleanLike | ts.TypeFlags.BigIntLike | ts.TypeFlags.Null | ts.TypeFlags.Undefined | ts.TypeFlags.Void | ts.TypeFlags.Never) && !(f & ts.TypeFlags.Union)) {
      if (f & ts.TypeFlags.TemplateLiteral || f & ts.TypeFlags.StringMapping) return 'string';
      return checker.typeToString(t);
    }
    if (t.isUnion()) {
      const parts = t.types.map((m) => print(m, indent));
      // the compiler splits boolean into its two literals
      const unique = [...new Set(parts)];
      const bool = unique.includes('true') && unique.includes('false');
      const joined = bool ? [...unique.filter((p) => p !== 'true' && p !== 'false'), 'boolean'] : unique;
      // sorted: the compiler orders a union's members by when it made their types, which any
      // unrelated change to the program can shift
      return joined.sort().join(' | ');
    }
    if (t.isIntersection()) return t.types.map((m) => `(${print(m, indent)})`).join(' & ');
    if (stack.has(t)) throw new Error(`recursive type ${checker.typeToString(t)}: the generator prints finite types only`);
    stack.add(t);
    try {
      if (checker.isTupleType(t)) return `[${checker.getTypeArguments(t as ts.TypeReference).map((a) => print(a, indent)).join(', ')}]`;
      if (checker.isArrayType(t)) {
        const [el] = checker.getTypeArguments(t as ts.TypeReference);
        return `Array<${print(el!, indent)}>`;
      }
      if (t.getCallSignatures().length > 0) throw new Error(`a function type in a procedure's types: ${checker.typeToString(t)}`);
      const inner = `${indent}  `;
      const lines: string[] = [];
      for (const info of checker.getIndexInfosOfType(t)) lines.push(`${inner}[key: ${checker.typeToString(info.keyType)}]: ${print(info.type, inner)};`);
      // by name, for the same reason: a type built from spreads lists its properties in the order
      // the compiler happened to resolve them
      for (const prop of [...checker.getPropertiesOfType(t)].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
        const optional = (prop.flags & ts.SymbolFlags.Optional) !== 0;
        let type = checker.getTypeOfSymbol(prop);
        if (optional) type = checker.getNonNullableType(type) === type ? type : removeUndefined(checker, type);
        lines.push(`${inner}${key(prop.name)}${optional ? '?' : ''}: ${print(type, inner)};`);
      }
      return lines.length === 0 ? 'object' : `{\n${lines.join('\n')}\n${indent}}`;
    } finally {
      stack.delete(t);
    }
  };
  return print;
}

/** An optional property's type without the `undefined` the compiler adds to it. */
function removeUndefined(checker: ts.TypeChecker, t: ts.Type): ts.Type {
  if (!t.isUnion()) return t;
  const kept = t.types.filter((m) => !(m.flags & ts.TypeFlags.Undefined));
  return kept.length === t.types.length ? t : (checker as unknown as { getUnionType(types: ts.Type[]): ts.Type }).getUnionType(kept);
}

interface Procedure {
  path: string[];
  kind: 'query' | 'mutation';
  input: string;
  output: string;
}

export function renderTrpcTypes(): string {
  const prog = program();
  const errors = ts.getPreEmitDiagnostics(prog, prog.getSourceFile(probePath));
  if (errors.length > 0) throw new Error(ts.formatDiagnosticsWithColorAndContext(errors, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => root, getNewLine: () => '\n' }));
  const checker = prog.getTypeChecker();
  const source = prog.getSourceFile(probePath)!;
  const exported = new Map(checker.getExportsOfModule(checker.getSymbolAtLocation(source)!).map((s) => [s.name, checker.getTypeOfSymbol(s)]));
  const print = printer(checker);
  const prop = (t: ts.Type, name: string): ts.Type => {
    const p = t.getProperty(name);
    if (!p) throw new Error(`no ${name} on ${checker.typeToString(t)}`);
    return checker.getTypeOfSymbol(p);
  };

  const procedures: Procedure[] = [];
  const walk = (record: ts.Type, outputs: ts.Type, path: string[]): void => {
    for (const p of checker.getPropertiesOfType(record)) {
      const node = checker.getTypeOfSymbol(p);
      const out = prop(outputs, p.name);
      const def = node.getProperty('_def');
      if (!def) {
        walk(node, out, [...path, p.name]);
        continue;
      }
      const d = checker.getTypeOfSymbol(def);
      const kind = checker.typeToString(prop(d, 'type')).replaceAll('"', '');
      if (kind !== 'query' && kind !== 'mutation') throw new Error(`${[...path, p.name].join('.')} is a ${kind}: the generator knows queries and mutations`);
      const input = prop(prop(d, '$types'), 'input');
      procedures.push({ path: [...path, p.name], kind, input: print(input, ''), output: print(out, '') });
    }
  };
  walk(exported.get('record')!, exported.get('outputs')!, []);

  const tree = (prefix: string[], indent: string, leaf: (p: Procedure) => string): string => {
    const here = procedures.filter((p) => prefix.every((s, i) => p.path[i] === s) && p.path.length > prefix.length);
    const names = [...new Set(here.map((p) => p.path[prefix.length]!))];
    const inner = `${indent}  `;
    const lines = names.map((n) => {
      const exact = here.find((p) => p.path.length === prefix.length + 1 && p.path[prefix.length] === n);
      return `${inner}${key(n)}: ${exact ? leaf(exact) : tree([...prefix, n], inner, leaf)};`;
    });
    return `{\n${lines.join('\n')}\n${indent}}`;
  };
  const dotted = (p: Procedure) => JSON.stringify(p.path.join('.'));

  return `// Generated by scripts/sdk-trpc-types.ts from apps/api/src/trpc/router.ts: do not edit.
// Regenerate with \`node scripts/sdk-trpc-types.ts\` after changing a procedure; a test fails
// while this file is stale.
import type { TRPCBuiltRouter, TRPCMutationProcedure, TRPCQueryProcedure } from '@trpc/server';

/** What each procedure takes, by its dotted path ("workflow.steps"). */
export interface RouterInputs {
${procedures.map((p) => `  ${dotted(p)}: ${p.input.replaceAll('\n', '\n  ')};`).join('\n')}
}

/** What each procedure answers (as JSON: dates are strings), by its dotted path. */
export interface RouterOutputs {
${procedures.map((p) => `  ${dotted(p)}: ${p.output.replaceAll('\n', '\n  ')};`).join('\n')}
}

/** The error shape the gateway's tRPC door answers: tRPC's, plus the catalogue code. */
export type TrpcErrorShape = ${print(exported.get('errorShape')!, '')};

/** The gateway's tRPC router as a client sees it: every procedure, its input and its output. */
export type AppRouter = TRPCBuiltRouter<
  { ctx: object; meta: object; errorShape: TrpcErrorShape; transformer: false },
  ${tree([], '  ', (p) => `${p.kind === 'query' ? 'TRPCQueryProcedure' : 'TRPCMutationProcedure'}<{ input: RouterInputs[${dotted(p)}]; output: RouterOutputs[${dotted(p)}]; meta: object }>`)}
>;
`;
}

if (import.meta.main) {
  const want = renderTrpcTypes();
  if (process.argv.includes('--check')) {
    if (readFileSync(trpcTypesPath, 'utf8') !== want) {
      console.error('packages/sdk/src/trpc/app-router.gen.ts is not current: run node scripts/sdk-trpc-types.ts');
      process.exit(1);
    }
  } else {
    writeFileSync(trpcTypesPath, want);
  }
}
