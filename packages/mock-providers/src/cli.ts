// `npm run mocks`: the mock vendors on loopback for trying the gateway offline. Starts an
// OpenAI, an Anthropic and a Gemini mock on fixed ports (override with --port-base), with a
// grading judge on the OpenAI one, and prints the environment lines that point a gateway at
// them. Runs until interrupted.
import { parseArgs } from 'node:util';
import { startAnthropicMock } from './anthropic/server.ts';
import { startGeminiMock } from './gemini/server.ts';
import { startOpenAIMock } from './openai/server.ts';
import { judgeGrade } from './grader.ts';

// --port-base, else MOCKS_PORT_BASE, else 9101: the OpenAI mock there, Anthropic and Gemini on the next two.
const { values } = parseArgs({ options: { 'port-base': { type: 'string', default: process.env.MOCKS_PORT_BASE ?? '9101' }, quiet: { type: 'boolean', default: false } } });
const base = Number(values['port-base']);
if (!Number.isInteger(base) || base < 1024 || base > 65530) {
  console.error(`--port-base must be a port between 1024 and 65530, got "${values['port-base']}"`);
  process.exit(2);
}

const KEYS = { openai: 'sk-mock-openai', anthropic: 'sk-ant-mock', gemini: 'mock-gemini-key' };
const vendors = [
  await startOpenAIMock({ port: base, apiKey: KEYS.openai, grader: judgeGrade }),
  await startAnthropicMock({ port: base + 1, apiKey: KEYS.anthropic }),
  await startGeminiMock({ port: base + 2, apiKey: KEYS.gemini }),
];
const [openai, anthropic, gemini] = vendors;

const env = [
  `OPENAI_BASE_URL=${openai!.url}`,
  `OPENAI_API_KEY=${KEYS.openai}`,
  `ANTHROPIC_BASE_URL=${anthropic!.url}`,
  `ANTHROPIC_API_KEY=${KEYS.anthropic}`,
  `GEMINI_BASE_URL=${gemini!.url}`,
  `GEMINI_API_KEY=${KEYS.gemini}`,
];
if (!values.quiet) console.error('# mock vendors on loopback; point the gateway at them with:');
console.log(env.join('\n'));
if (!values.quiet) console.error('# (Ctrl-C stops them)');

const stop = async () => {
  setTimeout(() => process.exit(0), 1000).unref(); // a client holding a connection open does not keep us up
  await Promise.all(vendors.map((v) => v.close()));
  process.exit(0);
};
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
