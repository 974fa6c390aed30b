// Content capture and recordings over GraphQL (spec 4.5, 2.7, 4.2): the capture settings, a
// workflow's recordings page by page (or one step's), and one recording in full. REST's
// fields, camelCased; the request and response as the vendor and the client saw them are JSON.
import { captureSettings as captureSchema, captureSettingsPatch, recordingRef, recordingsInput, type CaptureSettings, type RecordingView } from '@optimizer/schema';
import { captureSettings, getRecording, listRecordings, putCaptureSettings } from '../../domain/capture.ts';
import { type Builder, capability, reader, settingsWire } from '../builder.ts';

export function registerCapture(builder: Builder) {
  type Page = Awaited<ReturnType<typeof listRecordings>>;

  const CaptureContent = builder.enumType('CaptureContent', {
    description: '`none`: no recording; `metadata`: who, when, which model, sizes and status; `full`: the request after the guard and the stored response.',
    values: captureSchema.shape.content.unwrap().options,
  });

  const Capture = builder.objectRef<CaptureSettings>('CaptureSettings').implement({
    fields: (t) => ({
      content: t.field({ type: CaptureContent, resolve: (c) => c.content }),
      retentionDays: t.exposeInt('retention_days', { description: 'Recordings older than this are deleted.' }),
      redactPii: t.exposeBoolean('redact_pii', { description: 'PII is masked in what is kept.' }),
    }),
  });

  const CaptureInput = builder.inputType('CaptureSettingsInput', {
    description: 'Merges into the capture settings, as PUT /v1/settings/capture does: a field left out keeps its value, null returns it to its default.',
    fields: (t) => ({ content: t.field({ type: CaptureContent }), retentionDays: t.int(), redactPii: t.boolean() }),
  });

  const RecordingStep = builder.objectRef<NonNullable<RecordingView['step']>>('RecordingStep').implement({
    fields: (t) => ({ fingerprint: t.exposeString('fingerprint'), label: t.exposeString('label') }),
  });

  const RecordingUsage = builder.objectRef<RecordingView['usage']>('RecordingUsage').implement({
    fields: (t) => ({ promptTokens: t.exposeInt('prompt_tokens'), completionTokens: t.exposeInt('completion_tokens') }),
  });

  const RecordingMeta = builder.objectRef<RecordingView['meta']>('RecordingMeta').implement({
    description: 'What metadata keeps without the text.',
    fields: (t) => ({ messages: t.exposeInt('messages'), roles: t.exposeStringList('roles') }),
  });

  const Recording = builder.objectRef<RecordingView>('Recording').implement({
    description: "One call's recording, as the capture settings kept it.",
    fields: (t) => ({
      id: t.exposeString('id'),
      callId: t.exposeString('call_id'),
      workflowId: t.exposeString('workflow_id'),
      createdAt: t.exposeString('created_at'),
      step: t.field({ type: RecordingStep, nullable: true, resolve: (r) => r.step }),
      content: t.exposeString('content', { description: '`metadata` or `full`.' }),
      redacted: t.exposeBoolean('redacted'),
      requestedModel: t.exposeString('requested_model'),
      servedModel: t.exposeString('served_model', { nullable: true }),
      status: t.exposeInt('status'),
      errorCode: t.exposeString('error_code', { nullable: true }),
      usage: t.field({ type: RecordingUsage, resolve: (r) => r.usage }),
      request: t.field({ type: 'JSON', nullable: true, description: 'The request as the vendor saw it (after the guard); null for metadata.', resolve: (r) => r.request }),
      response: t.field({ type: 'JSON', nullable: true, description: 'The stored response as the client received it; null for metadata or a failed call.', resolve: (r) => r.response }),
      meta: t.field({ type: RecordingMeta, resolve: (r) => r.meta }),
    }),
  });

  const RecordingPage = builder.objectRef<Page>('RecordingPage').implement({
    fields: (t) => ({
      data: t.field({ type: [Recording], resolve: (p) => p.data }),
      nextCursor: t.exposeString('next_cursor', { nullable: true, description: 'Pass it as `cursor` for the next page; null at the end.' }),
    }),
  });

  builder.queryFields((t) => ({
    captureSettings: t.field({ type: Capture, resolve: reader(captureSettings) }),
    recordings: t.field({
      type: RecordingPage,
      description: "A workflow's recordings, newest first; `step` (a fingerprint) narrows to one step's.",
      args: { id: t.arg.string({ required: true }), limit: t.arg.int(), cursor: t.arg.string(), step: t.arg.string() },
      resolve: capability(recordingsInput, listRecordings),
    }),
    recording: t.field({
      type: Recording,
      description: 'One recording of a workflow, in full (its id is its call id).',
      args: { id: t.arg.string({ required: true }), recordingId: t.arg.string({ required: true }) },
      resolve: capability(recordingRef, getRecording),
    }),
  }));

  builder.mutationFields((t) => ({
    setCaptureSettings: t.field({
      type: Capture,
      args: { input: t.arg({ type: CaptureInput, required: true }) },
      resolve: capability(captureSettingsPatch, putCaptureSettings, settingsWire()),
    }),
  }));
}
