// Catalog strengths for the replay models: a prior on where exploring starts, as an operator
// would set it from public leaderboards. MMLU (5-shot) as published for each model, or for its
// base model where the chat model's was not, on a 0–1 scale; approximate by design (a prior,
// never evidence). A model not listed gets the flat prior, so a replay of other models is
// measured without any.
export const PUBLISHED_MMLU: Record<string, number> = {
  'gpt-4-1106-preview': 0.864, // GPT-4 technical report
  'gpt-3.5-turbo-1106': 0.7, // GPT-4 technical report (GPT-3.5)
  'claude-v2': 0.785, // Claude 2 model card
  'claude-v1': 0.77, // Claude 2 model card (Claude 1.3)
  'claude-instant-v1': 0.734, // Claude 2 model card (Claude Instant 1.1)
  'meta/llama-2-70b-chat': 0.689, // Llama 2 paper (70B base)
  'mistralai/mixtral-8x7b-chat': 0.706, // Mixtral of Experts paper
  'zero-one-ai/Yi-34B-Chat': 0.763, // Yi paper (34B base)
  'WizardLM/WizardLM-13B-V1.2': 0.548, // Llama 2 paper (13B base)
  'meta/code-llama-instruct-34b-chat': 0.54, // rough: Code Llama trades general knowledge for code
  'mistralai/mistral-7b-chat': 0.601, // Mistral 7B paper
  // the demo's models (demo/data)
  'gpt-4o': 0.887, // OpenAI, "Hello GPT-4o"
  'gpt-4o-mini': 0.82, // OpenAI, "GPT-4o mini: advancing cost-efficient intelligence"
  'claude-3-haiku': 0.752, // Claude 3 model card
};

/**
 * Code strengths, for a step whose requests ask for code (the gateway reads the kind from the
 * requests; the harness declares none): HumanEval pass@1 as published for each model, or its base
 * model, on a 0–1 scale. MMLU says little of code: Yi-34B, the strongest cheap model on MMLU here,
 * is among the weakest at code.
 */
export const PUBLISHED_HUMANEVAL: Record<string, number> = {
  'gpt-4-1106-preview': 0.837, // openai/simple-evals (the original GPT-4's 0.67 predates this model)
  'gpt-3.5-turbo-1106': 0.481, // GPT-4 technical report (GPT-3.5)
  'claude-v2': 0.712, // Claude 2 model card
  'claude-v1': 0.56, // Claude 2 model card (Claude 1.3)
  'claude-instant-v1': 0.528, // Claude 2 model card (Claude Instant 1.1)
  'meta/llama-2-70b-chat': 0.299, // Llama 2 paper (70B base)
  'mistralai/mixtral-8x7b-chat': 0.402, // Mixtral of Experts paper
  'zero-one-ai/Yi-34B-Chat': 0.232, // Yi paper (34B base)
  'WizardLM/WizardLM-13B-V1.2': 0.183, // Llama 2 paper (13B base)
  'meta/code-llama-instruct-34b-chat': 0.415, // Code Llama paper (Instruct 34B)
  'mistralai/mistral-7b-chat': 0.305, // Mistral 7B paper
  'gpt-4o': 0.902, // OpenAI, "Hello GPT-4o"
  'gpt-4o-mini': 0.872, // OpenAI, "GPT-4o mini: advancing cost-efficient intelligence"
  'claude-3-haiku': 0.759, // Claude 3 model card
};

/** The flat prior of a model the table does not list: the baseline strongest, every other model alike. */
function strengthOf(model: string, isBaseline: boolean): number {
  return PUBLISHED_MMLU[model] ?? (isBaseline ? 0.9 : 0.6);
}

/** The catalog strengths of a model: MMLU for general work, HumanEval for code where published; one prior for all where `prior` is given (a named set's). */
export function strengthsOf(model: string, isBaseline: boolean, prior?: number): { reasoning: number; code: number; chat: number } {
  const general = prior ?? strengthOf(model, isBaseline);
  return { reasoning: general, chat: general, code: prior ?? PUBLISHED_HUMANEVAL[model] ?? general };
}
