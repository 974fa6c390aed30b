// Prompt-injection patterns in user and tool content: instructions that try to override
// the system prompt, extract it, or switch the model into an unrestricted persona. A
// pattern list, not a classifier: it catches the common phrasings and says which matched.

export type InjectionKind = 'override_instructions' | 'reveal_system_prompt' | 'persona_jailbreak' | 'fake_system_turn';

const PATTERNS: [InjectionKind, RegExp][] = [
  [
    'override_instructions',
    /\b(?:ignore|disregard|forget|override|bypass)\b[^.\n]{0,40}\b(?:previous|prior|above|earlier|preceding|all|any|your|the|system)\b[^.\n]{0,30}\b(?:instructions?|prompts?|rules|directions|guidelines|context)\b/i,
  ],
  ['reveal_system_prompt', /\b(?:reveal|print|show|repeat|output|leak|tell me|what (?:is|are))\b[^.\n]{0,30}\b(?:your|the)\s+(?:system|initial|hidden|original)\s+(?:prompt|instructions|message)/i],
  ['persona_jailbreak', /\b(?:you are now|act as|pretend to be|from now on you are)\b[^.\n]{0,40}\b(?:DAN|jailbr(?:o|ea)ken|unrestricted|unfiltered|without (?:any )?(?:restrictions|limits|filters|rules))\b|\bdo anything now\b|\bdeveloper mode (?:enabled|on)\b/i],
  ['fake_system_turn', /(?:^|\n)\s*(?:<\|im_start\|>\s*system|\[\/?(?:SYSTEM|INST)\]|###\s*(?:system|new instructions)\s*:?|<\/?system>)/i],
];

/** The kinds of injection the text matches (each at most once). */
export function injectionKinds(text: string): InjectionKind[] {
  const out: InjectionKind[] = [];
  for (const [kind, re] of PATTERNS) if (re.test(text)) out.push(kind);
  return out;
}
