// The dashboard's GraphQL documents, also type-checked by apps/api/test/three-doors-types.test.ts; `npm run codegen`
// types them into ../gql.
import { graphql } from '../gql/index.ts';

export const overviewQuery = graphql(`
  query Overview($days: Int) {
    savings {
      calls
      baselineCost
      actualCost
      saving
      bySource {
        cache
        routing
        ttc
        trace
      }
    }
    savingsSeries(days: $days) {
      bucketSeconds
      points {
        at
        calls
        baselineCost
        actualCost
        saving
        bySource {
          cache
          routing
          ttc
          trace
        }
      }
    }
    workflows {
      id
      name
      stage
      stepsExpected
      stepsSettled
      ready
    }
  }
`);

/** The fields of a call the list and the detail share. */
export const callRowFragment = graphql(`
  fragment CallRow on Call {
    id
    createdAt
    agent
    step
    fingerprint
    run
    model
    routedModel
    provider
    status
    errorCode
    saving
    savingSource
    reasons
    latencyMs
    overheadMs
    cache {
      hit
    }
    cost {
      baseline
      served
      actual
      exploration
    }
    usage {
      promptTokens
      completionTokens
      cachedTokens
      reasoningTokens
      estimated
    }
    policy {
      key
      settled
      baselineModel
      qualityBar
    }
    why {
      kind
      summary
      policy
      bound
      bar
      samples
      others
    }
    grades
    guardrailFindings {
      type
      kind
      count
      action
    }
  }
`);

export const callListQuery = graphql(`
  query CallList($limit: Int, $startingAfter: String, $step: String, $model: String, $cache: String, $outcome: String, $from: String, $to: String) {
    calls(limit: $limit, startingAfter: $startingAfter, step: $step, model: $model, cache: $cache, outcome: $outcome, from: $from, to: $to) {
      ...CallRow
    }
  }
`);

export const callDetailQuery = graphql(`
  query CallDetail($id: String!) {
    call(id: $id) {
      ...CallRow
      attempts {
        attempt
        role
        vendor
        model
        status
        outcome
        latencyMs
        promptTokens
        completionTokens
        cost
        error
      }
    }
  }
`);

export const breakdownQuery = graphql(`
  query Breakdown($days: Int) {
    breakdown(days: $days) {
      days
      totals {
        calls
        baselineCost
        actualCost
        explorationCost
        saving
      }
      bySource {
        source
        calls
        baselineCost
        actualCost
        explorationCost
        saving
      }
      byStep {
        agent
        agentName
        step
        fingerprint
        calls
        baselineCost
        actualCost
        explorationCost
        saving
      }
      bucketSeconds
      traffic {
        at
        calls
        explorationCost
        byModel {
          model
          calls
          actualCost
        }
      }
    }
  }
`);

export const workflowDetailQuery = graphql(`
  query WorkflowDetail($id: String!) {
    workflows {
      id
      name
    }
    workflowStage(id: $id) {
      id
      stage
    }
    steps(id: $id) {
      fingerprint
      label
      calls
      expected
      settled
      excluded
      chosen
      probes
      served
      candidates
      exploration
    }
    events(id: $id, days: 30) {
      id
      kind
      at
      from
      to
      reason
    }
    discovery(id: $id) {
      enabled
      state
      steps {
        label
        settled
      }
    }
  }
`);

export const lockfileDownloadQuery = graphql(`
  query LockfileDownload($id: String!) {
    lockfile(id: $id) {
      lockfileVersion
      workflowId
      reportVersion
      finalizedAt
      qualityFloor
      steps {
        fingerprint
        label
        policy
        model
        reasoningEffort
        cache {
          exact
          semantic
        }
        evidence {
          n
          retention
          lcb
          costShare
        }
      }
    }
  }
`);

export const finalizeMutation = graphql(`
  mutation FinalizeReport($id: String!) {
    finalizeReport(id: $id) {
      version
    }
  }
`);

export const routingSettingsQuery = graphql(`
  query RoutingSettingsForm {
    routingSettings {
      mode
      allowedProviders
      tiebreak
      ladders
      band
      learningMode
      advancedSearch
      baselineModel
      judgeModel
      qualityFloor
      exploration {
        stepShare
        stepBudgetUsd
        dailyBudgetUsd
      }
      cache {
        exact
        semantic
        ttlSeconds
        semanticThreshold
      }
    }
  }
`);

export const saveRoutingMutation = graphql(`
  mutation SaveRouting($input: RoutingSettingsInput!) {
    setRoutingSettings(input: $input) {
      qualityFloor
      baselineModel
      judgeModel
      allowedProviders
    }
  }
`);

export const workflowRecordingsQuery = graphql(`
  query WorkflowRecordings($id: String!, $limit: Int, $cursor: String, $step: String) {
    recordings(id: $id, limit: $limit, cursor: $cursor, step: $step) {
      data {
        id
        createdAt
        step {
          fingerprint
          label
        }
        content
        redacted
        requestedModel
        servedModel
        status
        errorCode
        usage {
          promptTokens
          completionTokens
        }
        request
        response
      }
      nextCursor
    }
  }
`);

export const billingQuery = graphql(`
  query BillingOverview($from: String, $yearFrom: String) {
    billing {
      balances {
        walletUsd
        devAllowanceUsd
      }
      prices {
        feeRate
        platformKeys
        ownKeys
      }
      autoTopup {
        thresholdUsd
        amountUsd
        paymentMethodSaved
      }
      subscriptions {
        workflowId
        status
        currentPeriodEnd
        cancelAtPeriodEnd
      }
      ledger {
        id
        book
        kind
        amountUsd
        createdAt
      }
    }
    statements(from: $from) {
      period
      closed
      feeRate
      calls
      savings {
        total
      }
      feesUsd
      usageUsd
      amountDueUsd
    }
    rateLimits {
      ...RateLimitFields
    }
    savingsLedger(from: $yearFrom) {
      data {
        period
        savings {
          cache
          routing
          total
        }
        feeUsd
        netSavingUsd
      }
      totals {
        savingUsd
        feeUsd
        netSavingUsd
      }
    }
  }
`);

export const rateLimitFields = graphql(`
  fragment RateLimitFields on RateLimits {
    tenant {
      requestsPerMinute
      tokensPerMinute
    }
    keys {
      keyId
      requestsPerMinute
      tokensPerMinute
    }
    ceiling {
      requestsPerMinute
      tokensPerMinute
    }
  }
`);

export const setAutoTopupMutation = graphql(`
  mutation SetAutoTopup($thresholdUsd: Float, $amountUsd: Float) {
    setAutoTopup(thresholdUsd: $thresholdUsd, amountUsd: $amountUsd) {
      thresholdUsd
      amountUsd
    }
  }
`);

export const setRateLimitsMutation = graphql(`
  mutation SetRateLimits($input: RateLimitsInput!) {
    setRateLimits(input: $input) {
      ...RateLimitFields
    }
  }
`);

export const topupMutation = graphql(`
  mutation Topup($amountUsd: Float!) {
    createTopup(amountUsd: $amountUsd) {
      url
      checkoutId
    }
  }
`);

export const protectionSettingsQuery = graphql(`
  query ProtectionSettings {
    captureSettings {
      content
      retentionDays
      redactPii
    }
    guardSettings {
      redactPii
      piiKinds
      injection
    }
    alertSettings {
      spendCapUsd
      spendThresholds
      emailTo
      events
      webhooks {
        id
        url
        enabled
      }
    }
  }
`);

export const saveCaptureMutation = graphql(`
  mutation SaveCapture($input: CaptureSettingsInput!) {
    setCaptureSettings(input: $input) {
      content
      retentionDays
      redactPii
    }
  }
`);

export const saveGuardMutation = graphql(`
  mutation SaveGuard($input: GuardSettingsInput!) {
    setGuardSettings(input: $input) {
      redactPii
      piiKinds
      injection
    }
  }
`);

export const managedAgentsQuery = graphql(`
  query ManagedAgents {
    managedAgents {
      id
      name
      kind
      createdAt
      runs {
        id
        status
        input
        error
        createdAt
      }
    }
  }
`);

export const startRunMutation = graphql(`
  mutation StartManagedRun($id: String!, $input: String) {
    startManagedRun(id: $id, input: $input) {
      id
      status
    }
  }
`);

export const managedRunQuery = graphql(`
  query ManagedRun($id: String!) {
    managedRun(id: $id) {
      id
      agent
      kind
      status
      input
      output
      error
      steps {
        name
        output
      }
      actions {
        id
        connection
        method
        path
        body
        status
        response {
          status
          body
        }
        error
      }
      eventsUrl
      createdAt
    }
  }
`);

export const executeActionMutation = graphql(`
  mutation ExecuteManagedAction($id: String!, $action: String!) {
    executeManagedAction(id: $id, action: $action) {
      replayed
      action {
        id
        status
      }
    }
  }
`);

export const cancelRunMutation = graphql(`
  mutation CancelManagedRun($id: String!) {
    cancelManagedRun(id: $id) {
      id
      status
    }
  }
`);

export const managedScheduleQuery = graphql(`
  query ManagedAgentSchedule($id: String!) {
    managedAgentSchedule(id: $id) {
      cron
      input
      catchUpS
      nextAt
      lastFiredAt
      lastTick
      lastRun
    }
  }
`);

export const scheduleAgentMutation = graphql(`
  mutation ScheduleManagedAgent($id: String!, $cron: String!, $input: String, $catchUpS: Int) {
    scheduleManagedAgent(id: $id, cron: $cron, input: $input, catchUpS: $catchUpS) {
      cron
      nextAt
    }
  }
`);

export const unscheduleAgentMutation = graphql(`
  mutation UnscheduleManagedAgent($id: String!) {
    unscheduleManagedAgent(id: $id) {
      deleted
    }
  }
`);
