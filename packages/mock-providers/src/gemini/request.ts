// The generateContent request as the mock reads it, after parsing and normalising to lowerCamel names.

export interface Part {
  text?: string;
  thought?: boolean;
  thoughtSignature?: string;
  inlineData?: { mimeType?: string; data?: string };
  fileData?: { mimeType?: string; fileUri?: string };
  functionCall?: { id?: string; name?: string; args?: Record<string, unknown> };
  functionResponse?: { id?: string; name?: string; response?: Record<string, unknown> };
  executableCode?: unknown;
  codeExecutionResult?: unknown;
}

export interface Content {
  role?: string;
  parts?: Part[];
}

export interface FunctionDeclaration {
  name?: string;
  description?: string;
  parameters?: Record<string, unknown>;
}

export interface GenerationConfig {
  stopSequences?: string[];
  responseMimeType?: string;
  responseSchema?: Record<string, unknown>;
  candidateCount?: number | string;
  maxOutputTokens?: number | string;
  temperature?: number;
  thinkingConfig?: { includeThoughts?: boolean; thinkingBudget?: number | string };
}

export interface GenerateContentRequest {
  contents?: Content[];
  systemInstruction?: Content;
  tools?: { functionDeclarations?: FunctionDeclaration[] }[];
  toolConfig?: { functionCallingConfig?: { mode?: string; allowedFunctionNames?: string[] } };
  generationConfig?: GenerationConfig;
}
