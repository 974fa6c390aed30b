// The Vercel AI SDK through the gateway: the annotation as providerOptions.optimizer, the
// cost block back as providerMetadata.optimizer.
//   OPTIMIZER_URL=http://127.0.0.1:8080 OPTIMIZER_API_KEY=sk-opt-... node examples/ai-sdk.ts
import { generateText, streamText } from 'ai';
import { createOptimizer, optimizerInfo } from '@optimizer/sdk/ai';

const optimizer = createOptimizer({ baseURL: process.env.OPTIMIZER_URL ?? 'http://127.0.0.1:8080', apiKey: process.env.OPTIMIZER_API_KEY ?? '' });

const result = await generateText({
  model: optimizer('auto'),
  prompt: 'Classify this ticket: "I was charged twice"',
  providerOptions: { optimizer: { step: { id: 'triage', kind: 'classification' } } },
});
console.log(result.text, optimizerInfo(result));

const streamed = streamText({ model: optimizer('auto'), prompt: 'Say hello', providerOptions: { optimizer: { step: { id: 'greet' } } } });
for await (const piece of streamed.textStream) process.stdout.write(piece);
console.log('\n', optimizerInfo(await streamed.providerMetadata));
