// The request messages of generateContent (google.ai.generativelanguage.v1beta) and
// their fields, as data: the mock's parser rejects any other field as the real one does.
// Field names are lowerCamel; the parser also takes the proto's snake_case spelling.

export type Scalar = 'string' | 'bool' | 'int32' | 'int64' | 'float' | 'bytes' | 'struct' | 'value';

export type FieldType = Scalar | { message: string } | { enum: string; values: readonly string[] };

export interface Field {
  type: FieldType;
  repeated?: boolean;
  /** A map<string, type> (its entries are named `field[i].value` in errors). */
  map?: boolean;
}

const msg = (message: string): { message: string } => ({ message });
const list = (type: FieldType): Field => ({ type, repeated: true });
const one = (type: FieldType): Field => ({ type });

const TYPE_ENUM = { enum: 'Type', values: ['TYPE_UNSPECIFIED', 'STRING', 'NUMBER', 'INTEGER', 'BOOLEAN', 'ARRAY', 'OBJECT', 'NULL'] };
const MODE_ENUM = { enum: 'FunctionCallingConfig.Mode', values: ['MODE_UNSPECIFIED', 'AUTO', 'ANY', 'NONE', 'VALIDATED'] };

export const MESSAGES: Readonly<Record<string, Readonly<Record<string, Field>>>> = {
  GenerateContentRequest: {
    model: one('string'),
    contents: list(msg('Content')),
    tools: list(msg('Tool')),
    toolConfig: one(msg('ToolConfig')),
    safetySettings: list(msg('SafetySetting')),
    systemInstruction: one(msg('Content')),
    generationConfig: one(msg('GenerationConfig')),
    cachedContent: one('string'),
  },
  Content: { role: one('string'), parts: list(msg('Part')) },
  Part: {
    text: one('string'),
    inlineData: one(msg('Blob')),
    fileData: one(msg('FileData')),
    functionCall: one(msg('FunctionCall')),
    functionResponse: one(msg('FunctionResponse')),
    executableCode: one('value'),
    codeExecutionResult: one('value'),
    videoMetadata: one('value'),
    thought: one('bool'),
    thoughtSignature: one('bytes'),
    partMetadata: one('struct'),
  },
  Blob: { mimeType: one('string'), data: one('bytes') },
  FileData: { mimeType: one('string'), fileUri: one('string') },
  FunctionCall: { id: one('string'), name: one('string'), args: one('struct') },
  FunctionResponse: { id: one('string'), name: one('string'), response: one('struct'), willContinue: one('bool'), scheduling: one('string'), parts: list('value') },
  Tool: {
    functionDeclarations: list(msg('FunctionDeclaration')),
    googleSearchRetrieval: one('value'),
    codeExecution: one('value'),
    googleSearch: one('value'),
    urlContext: one('value'),
    computerUse: one('value'),
    fileSearch: one('value'),
    googleMaps: one('value'),
  },
  FunctionDeclaration: {
    name: one('string'),
    description: one('string'),
    behavior: one('string'),
    parameters: one(msg('Schema')),
    parametersJsonSchema: one('value'),
    response: one(msg('Schema')),
    responseJsonSchema: one('value'),
  },
  Schema: {
    type: one(TYPE_ENUM),
    format: one('string'),
    title: one('string'),
    description: one('string'),
    nullable: one('bool'),
    enum: list('string'),
    maxItems: one('int64'),
    minItems: one('int64'),
    properties: { type: msg('Schema'), map: true },
    required: list('string'),
    minProperties: one('int64'),
    maxProperties: one('int64'),
    minLength: one('int64'),
    maxLength: one('int64'),
    pattern: one('string'),
    example: one('value'),
    anyOf: list(msg('Schema')),
    propertyOrdering: list('string'),
    default: one('value'),
    items: one(msg('Schema')),
    minimum: one('float'),
    maximum: one('float'),
  },
  ToolConfig: { functionCallingConfig: one(msg('FunctionCallingConfig')), retrievalConfig: one('value') },
  FunctionCallingConfig: { mode: one(MODE_ENUM), allowedFunctionNames: list('string') },
  SafetySetting: { category: one('string'), threshold: one('string') },
  GenerationConfig: {
    stopSequences: list('string'),
    responseMimeType: one('string'),
    responseSchema: one(msg('Schema')),
    responseJsonSchema: one('value'),
    responseModalities: list('string'),
    candidateCount: one('int32'),
    maxOutputTokens: one('int32'),
    temperature: one('float'),
    topP: one('float'),
    topK: one('int32'),
    seed: one('int32'),
    presencePenalty: one('float'),
    frequencyPenalty: one('float'),
    responseLogprobs: one('bool'),
    logprobs: one('int32'),
    enableEnhancedCivicAnswers: one('bool'),
    speechConfig: one('value'),
    thinkingConfig: one(msg('ThinkingConfig')),
    imageConfig: one('value'),
    mediaResolution: one('string'),
  },
  ThinkingConfig: { includeThoughts: one('bool'), thinkingBudget: one('int32'), thinkingLevel: one('string') },
};

export const PROTO_PACKAGE = 'type.googleapis.com/google.ai.generativelanguage.v1beta';
