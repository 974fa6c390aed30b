// LangChain through the gateway: the annotation on the model or per call, the cost block on
// the answer's response_metadata.optimizer.
//   OPTIMIZER_URL=http://127.0.0.1:8080 OPTIMIZER_API_KEY=sk-opt-... node examples/langchain.ts
import { ChatPromptTemplate } from '@langchain/core/prompts';
import { OptimizerChatOpenAI, optimizerInfo } from '@optimizer/sdk/langchain';

const model = new OptimizerChatOpenAI({
  baseURL: process.env.OPTIMIZER_URL ?? 'http://127.0.0.1:8080',
  apiKey: process.env.OPTIMIZER_API_KEY ?? '',
  model: 'auto',
  annotation: { source: { release: 'v1.0.0' } },
});

const answer = await model.invoke('Classify this ticket: "I was charged twice"', { optimizer: { step: { id: 'triage' } } });
console.log(answer.content, optimizerInfo(answer));

const prompt = ChatPromptTemplate.fromMessages([['system', 'Answer in one word.'], ['human', '{question}']]);
// in a chain, bind the call's annotation to the model with withConfig
const chained = await prompt.pipe(model.withConfig({ optimizer: { step: { id: 'capital' } } })).invoke({ question: 'Capital of Norway?' });
console.log(chained.content, optimizerInfo(chained));
