// Three real clients nobody here wrote, each driven the way its own docs show, behind
// one small interface so the same cases and assertions run for every client. Each
// driver reports only what its client handed back (parsed tool args, assembled text,
// the parsed object), never raw wire data.
import OpenAI from 'openai';
import { zodResponseFormat } from 'openai/helpers/zod';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateObject, generateText, stepCountIs, streamText, tool as aiTool } from 'ai';
import { ChatOpenAI } from '@langchain/openai';
import { HumanMessage, type BaseMessage } from '@langchain/core/messages';
import { tool as lcTool } from '@langchain/core/tools';
import { z } from 'zod';

export const WEATHER_QUESTION = 'What is the weather in Oslo?';
/** What the tool returns to the model. */
export const WEATHER_RESULT = { sky: 'sunny', celsius: 21 };

export const weatherArgs = z.object({ city: z.string().describe('City name') });
export const report = z.object({
  city: z.string(),
  celsius: z.number(),
  conditions: z.enum(['sunny', 'cloudy', 'rain']),
});
export type Report = z.infer<typeof report>;

export interface Target {
  /** The gateway's base URL including /v1. */
  baseURL: string;
  apiKey: string;
  model: string;
}

export interface RoundTrip {
  /** The tool call as the client surfaced it, with its arguments already parsed. */
  call: { id: string; name: string; args: unknown };
  /** The model's answer after the tool result went back. */
  finalText: string;
}

export interface Driver {
  name: string;
  /**
   * Asks about the weather with a get_weather tool, takes the call the model makes,
   * runs `beforeResult` (the test re-scripts the mock there), sends the tool result
   * back and returns the final answer.
   */
  toolRoundTrip(t: Target, beforeResult: () => void): Promise<RoundTrip>;
  /** Streams an answer; returns the text pieces as the client yielded them. */
  stream(t: Target, prompt: string): Promise<string[]>;
  /** Asks for a `report` as structured output and returns what the client parsed. */
  structured(t: Target, prompt: string): Promise<Report>;
}

const openaiSdk: Driver = {
  name: 'the official openai SDK',
  async toolRoundTrip(t, beforeResult) {
    const client = new OpenAI({ baseURL: t.baseURL, apiKey: t.apiKey, maxRetries: 0 });
    const tools: OpenAI.Chat.Completions.ChatCompletionTool[] = [
      {
        type: 'function',
        function: { name: 'get_weather', description: 'Current weather for a city', parameters: z.toJSONSchema(weatherArgs) },
      },
    ];
    const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [{ role: 'user', content: WEATHER_QUESTION }];
    const first = await client.chat.completions.create({ model: t.model, messages, tools });
    const msg = first.choices[0]!.message;
    const tc = msg.tool_calls?.[0];
    if (!tc || tc.type !== 'function') throw new Error(`expected a function tool call, got ${JSON.stringify(msg)}`);
    const call = { id: tc.id, name: tc.function.name, args: JSON.parse(tc.function.arguments) as unknown };
    beforeResult();
    messages.push(msg, { role: 'tool', tool_call_id: tc.id, content: JSON.stringify(WEATHER_RESULT) });
    const second = await client.chat.completions.create({ model: t.model, messages, tools });
    return { call, finalText: second.choices[0]!.message.content ?? '' };
  },
  async stream(t, prompt) {
    const client = new OpenAI({ baseURL: t.baseURL, apiKey: t.apiKey, maxRetries: 0 });
    const s = await client.chat.completions.create({ model: t.model, messages: [{ role: 'user', content: prompt }], stream: true });
    const pieces: string[] = [];
    for await (const chunk of s) {
      const piece = chunk.choices[0]?.delta?.content;
      if (piece) pieces.push(piece);
    }
    return pieces;
  },
  async structured(t, prompt) {
    const client = new OpenAI({ baseURL: t.baseURL, apiKey: t.apiKey, maxRetries: 0 });
    const r = await client.chat.completions.parse({
      model: t.model,
      messages: [{ role: 'user', content: prompt }],
      response_format: zodResponseFormat(report, 'weather_report'),
    });
    const parsed = r.choices[0]!.message.parsed;
    if (!parsed) throw new Error(`no parsed output: ${JSON.stringify(r.choices[0]!.message)}`);
    return parsed;
  },
};

const aiSdk: Driver = {
  name: 'the Vercel AI SDK',
  async toolRoundTrip(t, beforeResult) {
    const provider = createOpenAICompatible({ name: 'gateway', baseURL: t.baseURL, apiKey: t.apiKey, supportsStructuredOutputs: true });
    // The SDK runs the whole loop itself: call → execute → result back → final text.
    const r = await generateText({
      model: provider(t.model),
      prompt: WEATHER_QUESTION,
      maxRetries: 0,
      stopWhen: stepCountIs(2),
      tools: {
        get_weather: aiTool({
          description: 'Current weather for a city',
          inputSchema: weatherArgs,
          execute: async () => {
            beforeResult();
            return WEATHER_RESULT;
          },
        }),
      },
    });
    const tc = r.steps[0]?.toolCalls[0];
    if (!tc) throw new Error(`expected a tool call in the first step, got ${JSON.stringify(r.steps.map((s) => s.content))}`);
    return { call: { id: tc.toolCallId, name: tc.toolName, args: tc.input }, finalText: r.text };
  },
  async stream(t, prompt) {
    const provider = createOpenAICompatible({ name: 'gateway', baseURL: t.baseURL, apiKey: t.apiKey });
    let failure: unknown;
    const r = streamText({ model: provider(t.model), prompt, maxRetries: 0, onError: ({ error }) => void (failure = error) });
    const pieces: string[] = [];
    for await (const piece of r.textStream) pieces.push(piece);
    if (failure) throw failure;
    return pieces;
  },
  async structured(t, prompt) {
    const provider = createOpenAICompatible({ name: 'gateway', baseURL: t.baseURL, apiKey: t.apiKey, supportsStructuredOutputs: true });
    const r = await generateObject({ model: provider(t.model), schema: report, schemaName: 'weather_report', prompt, maxRetries: 0 });
    return r.object;
  },
};

const chatModel = (t: Target) => new ChatOpenAI({ model: t.model, apiKey: t.apiKey, maxRetries: 0, configuration: { baseURL: t.baseURL } });

const langchain: Driver = {
  name: "LangChain's ChatOpenAI",
  async toolRoundTrip(t, beforeResult) {
    const getWeather = lcTool(async () => JSON.stringify(WEATHER_RESULT), {
      name: 'get_weather',
      description: 'Current weather for a city',
      schema: weatherArgs,
    });
    const model = chatModel(t).bindTools([getWeather]);
    const history: BaseMessage[] = [new HumanMessage(WEATHER_QUESTION)];
    const ai = await model.invoke(history);
    const tc = ai.tool_calls?.[0];
    if (!tc) throw new Error(`expected a tool call, got ${JSON.stringify(ai)}`);
    beforeResult();
    // Invoking a LangChain tool with the call itself yields the ToolMessage to send back.
    const toolMessage = await getWeather.invoke(tc);
    history.push(ai, toolMessage);
    const final = await model.invoke(history);
    return { call: { id: tc.id ?? '', name: tc.name, args: tc.args }, finalText: final.text };
  },
  async stream(t, prompt) {
    const pieces: string[] = [];
    for await (const chunk of await chatModel(t).stream(prompt)) if (chunk.text) pieces.push(chunk.text);
    return pieces;
  },
  async structured(t, prompt) {
    const model = chatModel(t).withStructuredOutput(report, { name: 'weather_report', method: 'jsonSchema' });
    return (await model.invoke(prompt)) as Report;
  },
};

export const drivers: Driver[] = [openaiSdk, aiSdk, langchain];
