/**
 * Span, attribute and metric names, from the OpenTelemetry semantic conventions (GenAI, MCP and
 * HTTP, semconv 1.37+), spelled here so the library depends on `@opentelemetry/api` alone.
 * `restap.*` names are ours.
 */
export const TELEMETRY_SCOPE = 'nestjs-restap';

export const ATTR = {
  genAiOperationName: 'gen_ai.operation.name',
  genAiProviderName: 'gen_ai.provider.name',
  genAiRequestModel: 'gen_ai.request.model',
  genAiResponseModel: 'gen_ai.response.model',
  genAiResponseId: 'gen_ai.response.id',
  genAiResponseFinishReasons: 'gen_ai.response.finish_reasons',
  genAiUsageInputTokens: 'gen_ai.usage.input_tokens',
  genAiUsageOutputTokens: 'gen_ai.usage.output_tokens',
  genAiTokenType: 'gen_ai.token.type',
  genAiToolName: 'gen_ai.tool.name',
  genAiToolCallId: 'gen_ai.tool.call.id',
  genAiToolType: 'gen_ai.tool.type',
  genAiAgentName: 'gen_ai.agent.name',
  genAiConversationId: 'gen_ai.conversation.id',
  genAiInputMessages: 'gen_ai.input.messages',
  genAiOutputMessages: 'gen_ai.output.messages',
  genAiToolCallArguments: 'gen_ai.tool.call.arguments',
  genAiToolCallResult: 'gen_ai.tool.call.result',
  mcpMethodName: 'mcp.method.name',
  mcpProtocolVersion: 'mcp.protocol.version',
  jsonrpcRequestId: 'jsonrpc.request.id',
  rpcSystem: 'rpc.system',
  rpcMethod: 'rpc.method',
  rpcResponseStatusCode: 'rpc.response.status_code',
  httpRequestMethod: 'http.request.method',
  httpRoute: 'http.route',
  httpResponseStatusCode: 'http.response.status_code',
  urlPath: 'url.path',
  errorType: 'error.type',
  restapDoor: 'restap.door',
  restapCapabilityId: 'restap.capability.id',
  restapToolOutcome: 'restap.tool.outcome',
  restapTurnStatus: 'restap.turn.status',
  restapMessageId: 'restap.message.id',
  restapTurnStopped: 'restap.turn.stopped',
  restapNewsSource: 'restap.news.source',
  restapNewsWaitMs: 'restap.news.wait_ms',
  restapNewsItems: 'restap.news.items',
  restapRateLimitBucket: 'restap.rate_limit.bucket',
  restapApprovalDoor: 'restap.approval.door',
  restapApprovalDecision: 'restap.approval.decision',
} as const;

export const METRIC = {
  tokenUsage: 'gen_ai.client.token.usage',
  operationDuration: 'gen_ai.client.operation.duration',
  turnDuration: 'restap.turn.duration',
  toolDuration: 'restap.tool.duration',
  newsAppended: 'restap.news.appended',
  rateLimitRefusals: 'restap.rate_limit.refusals',
  openStreams: 'restap.streams.open',
  heldPolls: 'restap.news.polls.held',
} as const;
