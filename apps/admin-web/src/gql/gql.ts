/* eslint-disable */
import * as types from './graphql.ts';



/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
    "\n  fragment ModelFields on Model {\n    model\n    provider\n    inputPerMtok\n    outputPerMtok\n    cachedInputPerMtok\n    cacheWriteMultiplier\n    inputModalities\n    outputModalities\n    tools\n    structuredOutputs\n    reasoningEfforts\n    contextLength\n    maxOutputTokens\n    searchOnly\n    moderationOnly\n    strengths {\n      capability\n      score\n    }\n    disabled\n    failover\n    weights\n  }\n": typeof types.ModelFieldsFragmentDoc,
    "\n  fragment ProviderFields on Provider {\n    name\n    baseUrl\n    wire\n    enabled\n    keySet\n    builtIn\n  }\n": typeof types.ProviderFieldsFragmentDoc,
    "\n  query Catalog {\n    catalog {\n      ...ModelFields\n    }\n  }\n": typeof types.CatalogDocument,
    "\n  query Providers {\n    providers {\n      ...ProviderFields\n    }\n  }\n": typeof types.ProvidersDocument,
    "\n  mutation PutModel($input: ModelInput!) {\n    putModel(input: $input) {\n      ...ModelFields\n    }\n  }\n": typeof types.PutModelDocument,
    "\n  mutation SetModelDisabled($model: String!, $disabled: Boolean!) {\n    setModelDisabled(model: $model, disabled: $disabled) {\n      ...ModelFields\n    }\n  }\n": typeof types.SetModelDisabledDocument,
    "\n  mutation RemoveModel($model: String!) {\n    removeModel(model: $model)\n  }\n": typeof types.RemoveModelDocument,
    "\n  mutation PutProvider($name: String!, $input: ProviderInput!) {\n    putProvider(name: $name, input: $input) {\n      ...ProviderFields\n    }\n  }\n": typeof types.PutProviderDocument,
    "\n  mutation RemoveProvider($name: String!) {\n    removeProvider(name: $name)\n  }\n": typeof types.RemoveProviderDocument,
    "\n  mutation TestProvider($name: String!) {\n    testProvider(name: $name) {\n      provider\n      ok\n      status\n      latencyMs\n      error\n    }\n  }\n": typeof types.TestProviderDocument,
    "\n  query Overview($days: Int) {\n    savings {\n      calls\n      baselineCost\n      actualCost\n      saving\n      bySource {\n        cache\n        routing\n        ttc\n        trace\n      }\n    }\n    savingsSeries(days: $days) {\n      bucketSeconds\n      points {\n        at\n        calls\n        baselineCost\n        actualCost\n        saving\n        bySource {\n          cache\n          routing\n          ttc\n          trace\n        }\n      }\n    }\n    workflows {\n      id\n      name\n      stage\n      stepsExpected\n      stepsSettled\n      ready\n    }\n  }\n": typeof types.OverviewDocument,
    "\n  fragment CallRow on Call {\n    id\n    createdAt\n    agent\n    step\n    fingerprint\n    run\n    model\n    routedModel\n    provider\n    status\n    errorCode\n    saving\n    savingSource\n    reasons\n    latencyMs\n    overheadMs\n    cache {\n      hit\n    }\n    cost {\n      baseline\n      served\n      actual\n      exploration\n    }\n    usage {\n      promptTokens\n      completionTokens\n      cachedTokens\n      reasoningTokens\n      estimated\n    }\n    policy {\n      key\n      settled\n      baselineModel\n      qualityBar\n    }\n    why {\n      kind\n      summary\n      policy\n      bound\n      bar\n      samples\n      others\n    }\n    grades\n    guardrailFindings {\n      type\n      kind\n      count\n      action\n    }\n  }\n": typeof types.CallRowFragmentDoc,
    "\n  query CallList($limit: Int, $startingAfter: String, $step: String, $model: String, $cache: String, $outcome: String, $from: String, $to: String) {\n    calls(limit: $limit, startingAfter: $startingAfter, step: $step, model: $model, cache: $cache, outcome: $outcome, from: $from, to: $to) {\n      ...CallRow\n    }\n  }\n": typeof types.CallListDocument,
    "\n  query CallDetail($id: String!) {\n    call(id: $id) {\n      ...CallRow\n      attempts {\n        attempt\n        role\n        vendor\n        model\n        status\n        outcome\n        latencyMs\n        promptTokens\n        completionTokens\n        cost\n        error\n      }\n    }\n  }\n": typeof types.CallDetailDocument,
    "\n  query Breakdown($days: Int) {\n    breakdown(days: $days) {\n      days\n      totals {\n        calls\n        baselineCost\n        actualCost\n        explorationCost\n        saving\n      }\n      bySource {\n        source\n        calls\n        baselineCost\n        actualCost\n        explorationCost\n        saving\n      }\n      byStep {\n        agent\n        agentName\n        step\n        fingerprint\n        calls\n        baselineCost\n        actualCost\n        explorationCost\n        saving\n      }\n      bucketSeconds\n      traffic {\n        at\n        calls\n        explorationCost\n        byModel {\n          model\n          calls\n          actualCost\n        }\n      }\n    }\n  }\n": typeof types.BreakdownDocument,
    "\n  query WorkflowDetail($id: String!) {\n    workflows {\n      id\n      name\n    }\n    workflowStage(id: $id) {\n      id\n      stage\n    }\n    steps(id: $id) {\n      fingerprint\n      label\n      calls\n      expected\n      settled\n      excluded\n      chosen\n      probes\n      served\n      candidates\n      exploration\n    }\n    events(id: $id, days: 30) {\n      id\n      kind\n      at\n      from\n      to\n      reason\n    }\n    discovery(id: $id) {\n      enabled\n      state\n      steps {\n        label\n        settled\n      }\n    }\n  }\n": typeof types.WorkflowDetailDocument,
    "\n  query LockfileDownload($id: String!) {\n    lockfile(id: $id) {\n      lockfileVersion\n      workflowId\n      reportVersion\n      finalizedAt\n      qualityFloor\n      steps {\n        fingerprint\n        label\n        policy\n        model\n        reasoningEffort\n        cache {\n          exact\n          semantic\n        }\n        evidence {\n          n\n          retention\n          lcb\n          costShare\n        }\n      }\n    }\n  }\n": typeof types.LockfileDownloadDocument,
    "\n  mutation FinalizeReport($id: String!) {\n    finalizeReport(id: $id) {\n      version\n    }\n  }\n": typeof types.FinalizeReportDocument,
    "\n  query RoutingSettingsForm {\n    routingSettings {\n      mode\n      allowedProviders\n      tiebreak\n      ladders\n      band\n      learningMode\n      advancedSearch\n      baselineModel\n      judgeModel\n      qualityFloor\n      exploration {\n        stepShare\n        stepBudgetUsd\n        dailyBudgetUsd\n      }\n      cache {\n        exact\n        semantic\n        ttlSeconds\n        semanticThreshold\n      }\n    }\n  }\n": typeof types.RoutingSettingsFormDocument,
    "\n  mutation SaveRouting($input: RoutingSettingsInput!) {\n    setRoutingSettings(input: $input) {\n      qualityFloor\n      baselineModel\n      judgeModel\n      allowedProviders\n    }\n  }\n": typeof types.SaveRoutingDocument,
    "\n  query WorkflowRecordings($id: String!, $limit: Int, $cursor: String, $step: String) {\n    recordings(id: $id, limit: $limit, cursor: $cursor, step: $step) {\n      data {\n        id\n        createdAt\n        step {\n          fingerprint\n          label\n        }\n        content\n        redacted\n        requestedModel\n        servedModel\n        status\n        errorCode\n        usage {\n          promptTokens\n          completionTokens\n        }\n        request\n        response\n      }\n      nextCursor\n    }\n  }\n": typeof types.WorkflowRecordingsDocument,
    "\n  query BillingOverview($from: String, $yearFrom: String) {\n    billing {\n      balances {\n        walletUsd\n        devAllowanceUsd\n      }\n      prices {\n        feeRate\n        platformKeys\n        ownKeys\n      }\n      autoTopup {\n        thresholdUsd\n        amountUsd\n        paymentMethodSaved\n      }\n      subscriptions {\n        workflowId\n        status\n        currentPeriodEnd\n        cancelAtPeriodEnd\n      }\n      ledger {\n        id\n        book\n        kind\n        amountUsd\n        createdAt\n      }\n    }\n    statements(from: $from) {\n      period\n      closed\n      feeRate\n      calls\n      savings {\n        total\n      }\n      feesUsd\n      usageUsd\n      amountDueUsd\n    }\n    rateLimits {\n      ...RateLimitFields\n    }\n    savingsLedger(from: $yearFrom) {\n      data {\n        period\n        savings {\n          cache\n          routing\n          total\n        }\n        feeUsd\n        netSavingUsd\n      }\n      totals {\n        savingUsd\n        feeUsd\n        netSavingUsd\n      }\n    }\n  }\n": typeof types.BillingOverviewDocument,
    "\n  fragment RateLimitFields on RateLimits {\n    tenant {\n      requestsPerMinute\n      tokensPerMinute\n    }\n    keys {\n      keyId\n      requestsPerMinute\n      tokensPerMinute\n    }\n    ceiling {\n      requestsPerMinute\n      tokensPerMinute\n    }\n  }\n": typeof types.RateLimitFieldsFragmentDoc,
    "\n  mutation SetAutoTopup($thresholdUsd: Float, $amountUsd: Float) {\n    setAutoTopup(thresholdUsd: $thresholdUsd, amountUsd: $amountUsd) {\n      thresholdUsd\n      amountUsd\n    }\n  }\n": typeof types.SetAutoTopupDocument,
    "\n  mutation SetRateLimits($input: RateLimitsInput!) {\n    setRateLimits(input: $input) {\n      ...RateLimitFields\n    }\n  }\n": typeof types.SetRateLimitsDocument,
    "\n  mutation Topup($amountUsd: Float!) {\n    createTopup(amountUsd: $amountUsd) {\n      url\n      checkoutId\n    }\n  }\n": typeof types.TopupDocument,
    "\n  query ProtectionSettings {\n    captureSettings {\n      content\n      retentionDays\n      redactPii\n    }\n    guardSettings {\n      redactPii\n      piiKinds\n      injection\n    }\n    alertSettings {\n      spendCapUsd\n      spendThresholds\n      emailTo\n      events\n      webhooks {\n        id\n        url\n        enabled\n      }\n    }\n  }\n": typeof types.ProtectionSettingsDocument,
    "\n  mutation SaveCapture($input: CaptureSettingsInput!) {\n    setCaptureSettings(input: $input) {\n      content\n      retentionDays\n      redactPii\n    }\n  }\n": typeof types.SaveCaptureDocument,
    "\n  mutation SaveGuard($input: GuardSettingsInput!) {\n    setGuardSettings(input: $input) {\n      redactPii\n      piiKinds\n      injection\n    }\n  }\n": typeof types.SaveGuardDocument,
    "\n  query ManagedAgents {\n    managedAgents {\n      id\n      name\n      kind\n      createdAt\n      runs {\n        id\n        status\n        input\n        error\n        createdAt\n      }\n    }\n  }\n": typeof types.ManagedAgentsDocument,
    "\n  mutation StartManagedRun($id: String!, $input: String) {\n    startManagedRun(id: $id, input: $input) {\n      id\n      status\n    }\n  }\n": typeof types.StartManagedRunDocument,
    "\n  query ManagedRun($id: String!) {\n    managedRun(id: $id) {\n      id\n      agent\n      kind\n      status\n      input\n      output\n      error\n      steps {\n        name\n        output\n      }\n      actions {\n        id\n        connection\n        method\n        path\n        body\n        status\n        response {\n          status\n          body\n        }\n        error\n      }\n      eventsUrl\n      createdAt\n    }\n  }\n": typeof types.ManagedRunDocument,
    "\n  mutation ExecuteManagedAction($id: String!, $action: String!) {\n    executeManagedAction(id: $id, action: $action) {\n      replayed\n      action {\n        id\n        status\n      }\n    }\n  }\n": typeof types.ExecuteManagedActionDocument,
    "\n  mutation CancelManagedRun($id: String!) {\n    cancelManagedRun(id: $id) {\n      id\n      status\n    }\n  }\n": typeof types.CancelManagedRunDocument,
    "\n  query ManagedAgentSchedule($id: String!) {\n    managedAgentSchedule(id: $id) {\n      cron\n      input\n      catchUpS\n      nextAt\n      lastFiredAt\n      lastTick\n      lastRun\n    }\n  }\n": typeof types.ManagedAgentScheduleDocument,
    "\n  mutation ScheduleManagedAgent($id: String!, $cron: String!, $input: String, $catchUpS: Int) {\n    scheduleManagedAgent(id: $id, cron: $cron, input: $input, catchUpS: $catchUpS) {\n      cron\n      nextAt\n    }\n  }\n": typeof types.ScheduleManagedAgentDocument,
    "\n  mutation UnscheduleManagedAgent($id: String!) {\n    unscheduleManagedAgent(id: $id) {\n      deleted\n    }\n  }\n": typeof types.UnscheduleManagedAgentDocument,
};
const documents: Documents = {
    "\n  fragment ModelFields on Model {\n    model\n    provider\n    inputPerMtok\n    outputPerMtok\n    cachedInputPerMtok\n    cacheWriteMultiplier\n    inputModalities\n    outputModalities\n    tools\n    structuredOutputs\n    reasoningEfforts\n    contextLength\n    maxOutputTokens\n    searchOnly\n    moderationOnly\n    strengths {\n      capability\n      score\n    }\n    disabled\n    failover\n    weights\n  }\n": types.ModelFieldsFragmentDoc,
    "\n  fragment ProviderFields on Provider {\n    name\n    baseUrl\n    wire\n    enabled\n    keySet\n    builtIn\n  }\n": types.ProviderFieldsFragmentDoc,
    "\n  query Catalog {\n    catalog {\n      ...ModelFields\n    }\n  }\n": types.CatalogDocument,
    "\n  query Providers {\n    providers {\n      ...ProviderFields\n    }\n  }\n": types.ProvidersDocument,
    "\n  mutation PutModel($input: ModelInput!) {\n    putModel(input: $input) {\n      ...ModelFields\n    }\n  }\n": types.PutModelDocument,
    "\n  mutation SetModelDisabled($model: String!, $disabled: Boolean!) {\n    setModelDisabled(model: $model, disabled: $disabled) {\n      ...ModelFields\n    }\n  }\n": types.SetModelDisabledDocument,
    "\n  mutation RemoveModel($model: String!) {\n    removeModel(model: $model)\n  }\n": types.RemoveModelDocument,
    "\n  mutation PutProvider($name: String!, $input: ProviderInput!) {\n    putProvider(name: $name, input: $input) {\n      ...ProviderFields\n    }\n  }\n": types.PutProviderDocument,
    "\n  mutation RemoveProvider($name: String!) {\n    removeProvider(name: $name)\n  }\n": types.RemoveProviderDocument,
    "\n  mutation TestProvider($name: String!) {\n    testProvider(name: $name) {\n      provider\n      ok\n      status\n      latencyMs\n      error\n    }\n  }\n": types.TestProviderDocument,
    "\n  query Overview($days: Int) {\n    savings {\n      calls\n      baselineCost\n      actualCost\n      saving\n      bySource {\n        cache\n        routing\n        ttc\n        trace\n      }\n    }\n    savingsSeries(days: $days) {\n      bucketSeconds\n      points {\n        at\n        calls\n        baselineCost\n        actualCost\n        saving\n        bySource {\n          cache\n          routing\n          ttc\n          trace\n        }\n      }\n    }\n    workflows {\n      id\n      name\n      stage\n      stepsExpected\n      stepsSettled\n      ready\n    }\n  }\n": types.OverviewDocument,
    "\n  fragment CallRow on Call {\n    id\n    createdAt\n    agent\n    step\n    fingerprint\n    run\n    model\n    routedModel\n    provider\n    status\n    errorCode\n    saving\n    savingSource\n    reasons\n    latencyMs\n    overheadMs\n    cache {\n      hit\n    }\n    cost {\n      baseline\n      served\n      actual\n      exploration\n    }\n    usage {\n      promptTokens\n      completionTokens\n      cachedTokens\n      reasoningTokens\n      estimated\n    }\n    policy {\n      key\n      settled\n      baselineModel\n      qualityBar\n    }\n    why {\n      kind\n      summary\n      policy\n      bound\n      bar\n      samples\n      others\n    }\n    grades\n    guardrailFindings {\n      type\n      kind\n      count\n      action\n    }\n  }\n": types.CallRowFragmentDoc,
    "\n  query CallList($limit: Int, $startingAfter: String, $step: String, $model: String, $cache: String, $outcome: String, $from: String, $to: String) {\n    calls(limit: $limit, startingAfter: $startingAfter, step: $step, model: $model, cache: $cache, outcome: $outcome, from: $from, to: $to) {\n      ...CallRow\n    }\n  }\n": types.CallListDocument,
    "\n  query CallDetail($id: String!) {\n    call(id: $id) {\n      ...CallRow\n      attempts {\n        attempt\n        role\n        vendor\n        model\n        status\n        outcome\n        latencyMs\n        promptTokens\n        completionTokens\n        cost\n        error\n      }\n    }\n  }\n": types.CallDetailDocument,
    "\n  query Breakdown($days: Int) {\n    breakdown(days: $days) {\n      days\n      totals {\n        calls\n        baselineCost\n        actualCost\n        explorationCost\n        saving\n      }\n      bySource {\n        source\n        calls\n        baselineCost\n        actualCost\n        explorationCost\n        saving\n      }\n      byStep {\n        agent\n        agentName\n        step\n        fingerprint\n        calls\n        baselineCost\n        actualCost\n        explorationCost\n        saving\n      }\n      bucketSeconds\n      traffic {\n        at\n        calls\n        explorationCost\n        byModel {\n          model\n          calls\n          actualCost\n        }\n      }\n    }\n  }\n": types.BreakdownDocument,
    "\n  query WorkflowDetail($id: String!) {\n    workflows {\n      id\n      name\n    }\n    workflowStage(id: $id) {\n      id\n      stage\n    }\n    steps(id: $id) {\n      fingerprint\n      label\n      calls\n      expected\n      settled\n      excluded\n      chosen\n      probes\n      served\n      candidates\n      exploration\n    }\n    events(id: $id, days: 30) {\n      id\n      kind\n      at\n      from\n      to\n      reason\n    }\n    discovery(id: $id) {\n      enabled\n      state\n      steps {\n        label\n        settled\n      }\n    }\n  }\n": types.WorkflowDetailDocument,
    "\n  query LockfileDownload($id: String!) {\n    lockfile(id: $id) {\n      lockfileVersion\n      workflowId\n      reportVersion\n      finalizedAt\n      qualityFloor\n      steps {\n        fingerprint\n        label\n        policy\n        model\n        reasoningEffort\n        cache {\n          exact\n          semantic\n        }\n        evidence {\n          n\n          retention\n          lcb\n          costShare\n        }\n      }\n    }\n  }\n": types.LockfileDownloadDocument,
    "\n  mutation FinalizeReport($id: String!) {\n    finalizeReport(id: $id) {\n      version\n    }\n  }\n": types.FinalizeReportDocument,
    "\n  query RoutingSettingsForm {\n    routingSettings {\n      mode\n      allowedProviders\n      tiebreak\n      ladders\n      band\n      learningMode\n      advancedSearch\n      baselineModel\n      judgeModel\n      qualityFloor\n      exploration {\n        stepShare\n        stepBudgetUsd\n        dailyBudgetUsd\n      }\n      cache {\n        exact\n        semantic\n        ttlSeconds\n        semanticThreshold\n      }\n    }\n  }\n": types.RoutingSettingsFormDocument,
    "\n  mutation SaveRouting($input: RoutingSettingsInput!) {\n    setRoutingSettings(input: $input) {\n      qualityFloor\n      baselineModel\n      judgeModel\n      allowedProviders\n    }\n  }\n": types.SaveRoutingDocument,
    "\n  query WorkflowRecordings($id: String!, $limit: Int, $cursor: String, $step: String) {\n    recordings(id: $id, limit: $limit, cursor: $cursor, step: $step) {\n      data {\n        id\n        createdAt\n        step {\n          fingerprint\n          label\n        }\n        content\n        redacted\n        requestedModel\n        servedModel\n        status\n        errorCode\n        usage {\n          promptTokens\n          completionTokens\n        }\n        request\n        response\n      }\n      nextCursor\n    }\n  }\n": types.WorkflowRecordingsDocument,
    "\n  query BillingOverview($from: String, $yearFrom: String) {\n    billing {\n      balances {\n        walletUsd\n        devAllowanceUsd\n      }\n      prices {\n        feeRate\n        platformKeys\n        ownKeys\n      }\n      autoTopup {\n        thresholdUsd\n        amountUsd\n        paymentMethodSaved\n      }\n      subscriptions {\n        workflowId\n        status\n        currentPeriodEnd\n        cancelAtPeriodEnd\n      }\n      ledger {\n        id\n        book\n        kind\n        amountUsd\n        createdAt\n      }\n    }\n    statements(from: $from) {\n      period\n      closed\n      feeRate\n      calls\n      savings {\n        total\n      }\n      feesUsd\n      usageUsd\n      amountDueUsd\n    }\n    rateLimits {\n      ...RateLimitFields\n    }\n    savingsLedger(from: $yearFrom) {\n      data {\n        period\n        savings {\n          cache\n          routing\n          total\n        }\n        feeUsd\n        netSavingUsd\n      }\n      totals {\n        savingUsd\n        feeUsd\n        netSavingUsd\n      }\n    }\n  }\n": types.BillingOverviewDocument,
    "\n  fragment RateLimitFields on RateLimits {\n    tenant {\n      requestsPerMinute\n      tokensPerMinute\n    }\n    keys {\n      keyId\n      requestsPerMinute\n      tokensPerMinute\n    }\n    ceiling {\n      requestsPerMinute\n      tokensPerMinute\n    }\n  }\n": types.RateLimitFieldsFragmentDoc,
    "\n  mutation SetAutoTopup($thresholdUsd: Float, $amountUsd: Float) {\n    setAutoTopup(thresholdUsd: $thresholdUsd, amountUsd: $amountUsd) {\n      thresholdUsd\n      amountUsd\n    }\n  }\n": types.SetAutoTopupDocument,
    "\n  mutation SetRateLimits($input: RateLimitsInput!) {\n    setRateLimits(input: $input) {\n      ...RateLimitFields\n    }\n  }\n": types.SetRateLimitsDocument,
    "\n  mutation Topup($amountUsd: Float!) {\n    createTopup(amountUsd: $amountUsd) {\n      url\n      checkoutId\n    }\n  }\n": types.TopupDocument,
    "\n  query ProtectionSettings {\n    captureSettings {\n      content\n      retentionDays\n      redactPii\n    }\n    guardSettings {\n      redactPii\n      piiKinds\n      injection\n    }\n    alertSettings {\n      spendCapUsd\n      spendThresholds\n      emailTo\n      events\n      webhooks {\n        id\n        url\n        enabled\n      }\n    }\n  }\n": types.ProtectionSettingsDocument,
    "\n  mutation SaveCapture($input: CaptureSettingsInput!) {\n    setCaptureSettings(input: $input) {\n      content\n      retentionDays\n      redactPii\n    }\n  }\n": types.SaveCaptureDocument,
    "\n  mutation SaveGuard($input: GuardSettingsInput!) {\n    setGuardSettings(input: $input) {\n      redactPii\n      piiKinds\n      injection\n    }\n  }\n": types.SaveGuardDocument,
    "\n  query ManagedAgents {\n    managedAgents {\n      id\n      name\n      kind\n      createdAt\n      runs {\n        id\n        status\n        input\n        error\n        createdAt\n      }\n    }\n  }\n": types.ManagedAgentsDocument,
    "\n  mutation StartManagedRun($id: String!, $input: String) {\n    startManagedRun(id: $id, input: $input) {\n      id\n      status\n    }\n  }\n": types.StartManagedRunDocument,
    "\n  query ManagedRun($id: String!) {\n    managedRun(id: $id) {\n      id\n      agent\n      kind\n      status\n      input\n      output\n      error\n      steps {\n        name\n        output\n      }\n      actions {\n        id\n        connection\n        method\n        path\n        body\n        status\n        response {\n          status\n          body\n        }\n        error\n      }\n      eventsUrl\n      createdAt\n    }\n  }\n": types.ManagedRunDocument,
    "\n  mutation ExecuteManagedAction($id: String!, $action: String!) {\n    executeManagedAction(id: $id, action: $action) {\n      replayed\n      action {\n        id\n        status\n      }\n    }\n  }\n": types.ExecuteManagedActionDocument,
    "\n  mutation CancelManagedRun($id: String!) {\n    cancelManagedRun(id: $id) {\n      id\n      status\n    }\n  }\n": types.CancelManagedRunDocument,
    "\n  query ManagedAgentSchedule($id: String!) {\n    managedAgentSchedule(id: $id) {\n      cron\n      input\n      catchUpS\n      nextAt\n      lastFiredAt\n      lastTick\n      lastRun\n    }\n  }\n": types.ManagedAgentScheduleDocument,
    "\n  mutation ScheduleManagedAgent($id: String!, $cron: String!, $input: String, $catchUpS: Int) {\n    scheduleManagedAgent(id: $id, cron: $cron, input: $input, catchUpS: $catchUpS) {\n      cron\n      nextAt\n    }\n  }\n": types.ScheduleManagedAgentDocument,
    "\n  mutation UnscheduleManagedAgent($id: String!) {\n    unscheduleManagedAgent(id: $id) {\n      deleted\n    }\n  }\n": types.UnscheduleManagedAgentDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment ModelFields on Model {\n    model\n    provider\n    inputPerMtok\n    outputPerMtok\n    cachedInputPerMtok\n    cacheWriteMultiplier\n    inputModalities\n    outputModalities\n    tools\n    structuredOutputs\n    reasoningEfforts\n    contextLength\n    maxOutputTokens\n    searchOnly\n    moderationOnly\n    strengths {\n      capability\n      score\n    }\n    disabled\n    failover\n    weights\n  }\n"): typeof import('./graphql.ts').ModelFieldsFragmentDoc;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment ProviderFields on Provider {\n    name\n    baseUrl\n    wire\n    enabled\n    keySet\n    builtIn\n  }\n"): typeof import('./graphql.ts').ProviderFieldsFragmentDoc;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Catalog {\n    catalog {\n      ...ModelFields\n    }\n  }\n"): typeof import('./graphql.ts').CatalogDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Providers {\n    providers {\n      ...ProviderFields\n    }\n  }\n"): typeof import('./graphql.ts').ProvidersDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation PutModel($input: ModelInput!) {\n    putModel(input: $input) {\n      ...ModelFields\n    }\n  }\n"): typeof import('./graphql.ts').PutModelDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SetModelDisabled($model: String!, $disabled: Boolean!) {\n    setModelDisabled(model: $model, disabled: $disabled) {\n      ...ModelFields\n    }\n  }\n"): typeof import('./graphql.ts').SetModelDisabledDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RemoveModel($model: String!) {\n    removeModel(model: $model)\n  }\n"): typeof import('./graphql.ts').RemoveModelDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation PutProvider($name: String!, $input: ProviderInput!) {\n    putProvider(name: $name, input: $input) {\n      ...ProviderFields\n    }\n  }\n"): typeof import('./graphql.ts').PutProviderDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RemoveProvider($name: String!) {\n    removeProvider(name: $name)\n  }\n"): typeof import('./graphql.ts').RemoveProviderDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation TestProvider($name: String!) {\n    testProvider(name: $name) {\n      provider\n      ok\n      status\n      latencyMs\n      error\n    }\n  }\n"): typeof import('./graphql.ts').TestProviderDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Overview($days: Int) {\n    savings {\n      calls\n      baselineCost\n      actualCost\n      saving\n      bySource {\n        cache\n        routing\n        ttc\n        trace\n      }\n    }\n    savingsSeries(days: $days) {\n      bucketSeconds\n      points {\n        at\n        calls\n        baselineCost\n        actualCost\n        saving\n        bySource {\n          cache\n          routing\n          ttc\n          trace\n        }\n      }\n    }\n    workflows {\n      id\n      name\n      stage\n      stepsExpected\n      stepsSettled\n      ready\n    }\n  }\n"): typeof import('./graphql.ts').OverviewDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment CallRow on Call {\n    id\n    createdAt\n    agent\n    step\n    fingerprint\n    run\n    model\n    routedModel\n    provider\n    status\n    errorCode\n    saving\n    savingSource\n    reasons\n    latencyMs\n    overheadMs\n    cache {\n      hit\n    }\n    cost {\n      baseline\n      served\n      actual\n      exploration\n    }\n    usage {\n      promptTokens\n      completionTokens\n      cachedTokens\n      reasoningTokens\n      estimated\n    }\n    policy {\n      key\n      settled\n      baselineModel\n      qualityBar\n    }\n    why {\n      kind\n      summary\n      policy\n      bound\n      bar\n      samples\n      others\n    }\n    grades\n    guardrailFindings {\n      type\n      kind\n      count\n      action\n    }\n  }\n"): typeof import('./graphql.ts').CallRowFragmentDoc;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query CallList($limit: Int, $startingAfter: String, $step: String, $model: String, $cache: String, $outcome: String, $from: String, $to: String) {\n    calls(limit: $limit, startingAfter: $startingAfter, step: $step, model: $model, cache: $cache, outcome: $outcome, from: $from, to: $to) {\n      ...CallRow\n    }\n  }\n"): typeof import('./graphql.ts').CallListDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query CallDetail($id: String!) {\n    call(id: $id) {\n      ...CallRow\n      attempts {\n        attempt\n        role\n        vendor\n        model\n        status\n        outcome\n        latencyMs\n        promptTokens\n        completionTokens\n        cost\n        error\n      }\n    }\n  }\n"): typeof import('./graphql.ts').CallDetailDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Breakdown($days: Int) {\n    breakdown(days: $days) {\n      days\n      totals {\n        calls\n        baselineCost\n        actualCost\n        explorationCost\n        saving\n      }\n      bySource {\n        source\n        calls\n        baselineCost\n        actualCost\n        explorationCost\n        saving\n      }\n      byStep {\n        agent\n        agentName\n        step\n        fingerprint\n        calls\n        baselineCost\n        actualCost\n        explorationCost\n        saving\n      }\n      bucketSeconds\n      traffic {\n        at\n        calls\n        explorationCost\n        byModel {\n          model\n          calls\n          actualCost\n        }\n      }\n    }\n  }\n"): typeof import('./graphql.ts').BreakdownDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query WorkflowDetail($id: String!) {\n    workflows {\n      id\n      name\n    }\n    workflowStage(id: $id) {\n      id\n      stage\n    }\n    steps(id: $id) {\n      fingerprint\n      label\n      calls\n      expected\n      settled\n      excluded\n      chosen\n      probes\n      served\n      candidates\n      exploration\n    }\n    events(id: $id, days: 30) {\n      id\n      kind\n      at\n      from\n      to\n      reason\n    }\n    discovery(id: $id) {\n      enabled\n      state\n      steps {\n        label\n        settled\n      }\n    }\n  }\n"): typeof import('./graphql.ts').WorkflowDetailDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query LockfileDownload($id: String!) {\n    lockfile(id: $id) {\n      lockfileVersion\n      workflowId\n      reportVersion\n      finalizedAt\n      qualityFloor\n      steps {\n        fingerprint\n        label\n        policy\n        model\n        reasoningEffort\n        cache {\n          exact\n          semantic\n        }\n        evidence {\n          n\n          retention\n          lcb\n          costShare\n        }\n      }\n    }\n  }\n"): typeof import('./graphql.ts').LockfileDownloadDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation FinalizeReport($id: String!) {\n    finalizeReport(id: $id) {\n      version\n    }\n  }\n"): typeof import('./graphql.ts').FinalizeReportDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query RoutingSettingsForm {\n    routingSettings {\n      mode\n      allowedProviders\n      tiebreak\n      ladders\n      band\n      learningMode\n      advancedSearch\n      baselineModel\n      judgeModel\n      qualityFloor\n      exploration {\n        stepShare\n        stepBudgetUsd\n        dailyBudgetUsd\n      }\n      cache {\n        exact\n        semantic\n        ttlSeconds\n        semanticThreshold\n      }\n    }\n  }\n"): typeof import('./graphql.ts').RoutingSettingsFormDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SaveRouting($input: RoutingSettingsInput!) {\n    setRoutingSettings(input: $input) {\n      qualityFloor\n      baselineModel\n      judgeModel\n      allowedProviders\n    }\n  }\n"): typeof import('./graphql.ts').SaveRoutingDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query WorkflowRecordings($id: String!, $limit: Int, $cursor: String, $step: String) {\n    recordings(id: $id, limit: $limit, cursor: $cursor, step: $step) {\n      data {\n        id\n        createdAt\n        step {\n          fingerprint\n          label\n        }\n        content\n        redacted\n        requestedModel\n        servedModel\n        status\n        errorCode\n        usage {\n          promptTokens\n          completionTokens\n        }\n        request\n        response\n      }\n      nextCursor\n    }\n  }\n"): typeof import('./graphql.ts').WorkflowRecordingsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query BillingOverview($from: String, $yearFrom: String) {\n    billing {\n      balances {\n        walletUsd\n        devAllowanceUsd\n      }\n      prices {\n        feeRate\n        platformKeys\n        ownKeys\n      }\n      autoTopup {\n        thresholdUsd\n        amountUsd\n        paymentMethodSaved\n      }\n      subscriptions {\n        workflowId\n        status\n        currentPeriodEnd\n        cancelAtPeriodEnd\n      }\n      ledger {\n        id\n        book\n        kind\n        amountUsd\n        createdAt\n      }\n    }\n    statements(from: $from) {\n      period\n      closed\n      feeRate\n      calls\n      savings {\n        total\n      }\n      feesUsd\n      usageUsd\n      amountDueUsd\n    }\n    rateLimits {\n      ...RateLimitFields\n    }\n    savingsLedger(from: $yearFrom) {\n      data {\n        period\n        savings {\n          cache\n          routing\n          total\n        }\n        feeUsd\n        netSavingUsd\n      }\n      totals {\n        savingUsd\n        feeUsd\n        netSavingUsd\n      }\n    }\n  }\n"): typeof import('./graphql.ts').BillingOverviewDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  fragment RateLimitFields on RateLimits {\n    tenant {\n      requestsPerMinute\n      tokensPerMinute\n    }\n    keys {\n      keyId\n      requestsPerMinute\n      tokensPerMinute\n    }\n    ceiling {\n      requestsPerMinute\n      tokensPerMinute\n    }\n  }\n"): typeof import('./graphql.ts').RateLimitFieldsFragmentDoc;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SetAutoTopup($thresholdUsd: Float, $amountUsd: Float) {\n    setAutoTopup(thresholdUsd: $thresholdUsd, amountUsd: $amountUsd) {\n      thresholdUsd\n      amountUsd\n    }\n  }\n"): typeof import('./graphql.ts').SetAutoTopupDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SetRateLimits($input: RateLimitsInput!) {\n    setRateLimits(input: $input) {\n      ...RateLimitFields\n    }\n  }\n"): typeof import('./graphql.ts').SetRateLimitsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation Topup($amountUsd: Float!) {\n    createTopup(amountUsd: $amountUsd) {\n      url\n      checkoutId\n    }\n  }\n"): typeof import('./graphql.ts').TopupDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ProtectionSettings {\n    captureSettings {\n      content\n      retentionDays\n      redactPii\n    }\n    guardSettings {\n      redactPii\n      piiKinds\n      injection\n    }\n    alertSettings {\n      spendCapUsd\n      spendThresholds\n      emailTo\n      events\n      webhooks {\n        id\n        url\n        enabled\n      }\n    }\n  }\n"): typeof import('./graphql.ts').ProtectionSettingsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SaveCapture($input: CaptureSettingsInput!) {\n    setCaptureSettings(input: $input) {\n      content\n      retentionDays\n      redactPii\n    }\n  }\n"): typeof import('./graphql.ts').SaveCaptureDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SaveGuard($input: GuardSettingsInput!) {\n    setGuardSettings(input: $input) {\n      redactPii\n      piiKinds\n      injection\n    }\n  }\n"): typeof import('./graphql.ts').SaveGuardDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ManagedAgents {\n    managedAgents {\n      id\n      name\n      kind\n      createdAt\n      runs {\n        id\n        status\n        input\n        error\n        createdAt\n      }\n    }\n  }\n"): typeof import('./graphql.ts').ManagedAgentsDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation StartManagedRun($id: String!, $input: String) {\n    startManagedRun(id: $id, input: $input) {\n      id\n      status\n    }\n  }\n"): typeof import('./graphql.ts').StartManagedRunDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ManagedRun($id: String!) {\n    managedRun(id: $id) {\n      id\n      agent\n      kind\n      status\n      input\n      output\n      error\n      steps {\n        name\n        output\n      }\n      actions {\n        id\n        connection\n        method\n        path\n        body\n        status\n        response {\n          status\n          body\n        }\n        error\n      }\n      eventsUrl\n      createdAt\n    }\n  }\n"): typeof import('./graphql.ts').ManagedRunDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ExecuteManagedAction($id: String!, $action: String!) {\n    executeManagedAction(id: $id, action: $action) {\n      replayed\n      action {\n        id\n        status\n      }\n    }\n  }\n"): typeof import('./graphql.ts').ExecuteManagedActionDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CancelManagedRun($id: String!) {\n    cancelManagedRun(id: $id) {\n      id\n      status\n    }\n  }\n"): typeof import('./graphql.ts').CancelManagedRunDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ManagedAgentSchedule($id: String!) {\n    managedAgentSchedule(id: $id) {\n      cron\n      input\n      catchUpS\n      nextAt\n      lastFiredAt\n      lastTick\n      lastRun\n    }\n  }\n"): typeof import('./graphql.ts').ManagedAgentScheduleDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ScheduleManagedAgent($id: String!, $cron: String!, $input: String, $catchUpS: Int) {\n    scheduleManagedAgent(id: $id, cron: $cron, input: $input, catchUpS: $catchUpS) {\n      cron\n      nextAt\n    }\n  }\n"): typeof import('./graphql.ts').ScheduleManagedAgentDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation UnscheduleManagedAgent($id: String!) {\n    unscheduleManagedAgent(id: $id) {\n      deleted\n    }\n  }\n"): typeof import('./graphql.ts').UnscheduleManagedAgentDocument;


export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}
