// LangChain through the gateway: the annotation on the model or per call, the cost block,
// call id and served model on the answer's response_metadata.optimizer, for invoke, a chain
// and a stream (on its last chunk).
//   OPTIMIZER_URL=http://127.0.0.1:8080 OPTIMIZER_API_KEY=sk-opt-... node examples/langchain.mjs
import { ChatPromptTemplate } from '@langchain/core/prompts';
import { OptimizerChatOpenAI, optimizerInfo } from '@optimizer/sdk/langchain';

const model = new OptimizerChatOpenAI({
  baseURL: process.env.OPTIMIZER_URL ?? 'http://127.0.0.1:8080',
  apiKey: process.env.OPTIMIZER_API_KEY ?? '',
  model: 'auto',
  annotation: { source: { release: 'v1.0.0' } },
});
const show = (what, text, info) => console.log(`${what}: ${text} (call ${info?.call_id}, ${info?.model}, cost ${info?.actual_cost} USD, saving ${info?.saving} USD)`);

const answer = await model.invoke('Classify this ticket: "I was charged twice"', { optimizer: { step: { id: 'triage' } } });
show('invoke', answer.content, optimizerInfo(answer));

const prompt = ChatPromptTemplate.fromMessages([['system', 'Answer in one word.'], ['human', '{question}']]);
// in a chain, bind the call's annotation to the model with withConfig
const chained = await prompt.pipe(model.withConfig({ optimizer: { step: { id: 'capital' } } })).invoke({ question: 'Capital of Norway?' });
show('chain', chained.content, optimizerInfo(chained));

let whole;
for await (const chunk of await model.stream('Say hello', { optimizer: { step: { id: 'greet' } } })) whole = whole ? whole.concat(chunk) : chunk;
show('stream', whole?.content, optimizerInfo(whole));
