// The Vercel AI SDK (ai 5, 6 or 7) through the gateway: the annotation as
// providerOptions.optimizer, the cost block, call id and served model back as
// providerMetadata.optimizer, for generateText and for streamText.
//   OPTIMIZER_URL=http://127.0.0.1:8080 OPTIMIZER_API_KEY=sk-opt-... node examples/ai-sdk.mjs
import { generateText, streamText } from 'ai';
import { createOptimizer, optimizerInfo } from '@optimizer/sdk/ai';

const optimizer = createOptimizer({ baseURL: process.env.OPTIMIZER_URL ?? 'http://127.0.0.1:8080', apiKey: process.env.OPTIMIZER_API_KEY ?? '' });
const show = (what, text, info) => console.log(`${what}: ${text} (call ${info?.call_id}, ${info?.model}, cost ${info?.actual_cost} USD, saving ${info?.saving} USD)`);

const result = await generateText({
  model: optimizer('auto'),
  prompt: 'Classify this ticket: "I was charged twice"',
  providerOptions: { optimizer: { step: { id: 'triage', kind: 'classification' } } },
});
show('generateText', result.text, optimizerInfo(result));

const streamed = streamText({ model: optimizer('auto'), prompt: 'Say hello', providerOptions: { optimizer: { step: { id: 'greet' } } } });
let text = '';
for await (const piece of streamed.textStream) text += piece;
show('streamText', text, optimizerInfo(await streamed.providerMetadata));
