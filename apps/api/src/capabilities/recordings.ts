// A workflow's recordings (spec 2.7, 4.2): page by page (or one step's), and one in full. The
// capture settings decide what was kept; the domain checks the workflow is the tenant's.
import { recordingRef, recordingsInput } from '@optimizer/schema';
import { getRecording, listRecordings } from '../domain/capture.ts';
import { capability } from './capability.ts';
import { Recording, RecordingPage } from './views/recordings.ts';

export const recordings = capability({
  auth: 'control',
  input: recordingsInput,
  output: RecordingPage,
  run: listRecordings,
  rest: {
    method: 'get',
    path: '/v1/workflows/:id/recordings',
    tag: 'Workflows',
    summary: "The workflow's recordings, a page at a time",
    description: "`step` (a fingerprint) narrows to one step's recordings.",
    answer: 'A page of recordings and the cursor of the next.',
    errors: ['not_found'],
  },
  graphql: { name: 'recordings', description: "A workflow's recordings, newest first; `step` (a fingerprint) narrows to one step's." },
});

export const recording = capability({
  auth: 'control',
  input: recordingRef,
  output: Recording,
  run: getRecording,
  rest: { method: 'get', path: '/v1/workflows/:id/recordings/:recording_id', tag: 'Workflows', summary: 'One recording, in full', description: "A recording's id is its call's id.", answer: 'The recording.', errors: ['not_found'] },
  graphql: { name: 'recording', description: 'One recording of a workflow, in full (its id is its call id).' },
});
