import { A2A_PROTOCOL_VERSION, type AgentCard, type AgentSkill, type SecurityScheme } from '@a2a-js/sdk';
import { duplicateInterfacesForLegacy } from '@a2a-js/sdk/compat/v0_3';
import { CATALOG_PATH } from '../../restap.constants';
import { CAPABILITY_EXTENSION_URI, TALK_SKILL_ID } from './a2a.constants';
import type { RegisteredCapability } from '../../core/registry/restap.registry';
import type { JsonSchema } from '../../interfaces/catalog.interface';
import type { AuthorizationServerInfo } from '../kit/auth/oauth-gate';
import { mayCall, requiredScopesOf } from '../../core/auth/capability-scopes';
import type { RestapCaller } from '../../core/caller';
import type { A2aDoorOptions, RestapA2aSecurityScheme } from './a2a.options';

const TEXT = 'text/plain';
const JSON_MODE = 'application/json';

/** What the card needs from the module, gathered once at bootstrap. */
export interface AgentCardSource {
  options: A2aDoorOptions;
  capabilities: RegisteredCapability[];
  /** The @Talk() handler is there (and talk is enabled). */
  talk: boolean;
  /** With `auth.oauth`: the authorization server's metadata, when it could be read at bootstrap. */
  oauthServer?: AuthorizationServerInfo;
}

/**
 * Everything of the agent card but its interface URLs, built once at bootstrap: name, version,
 * streaming, modes, the capability extension, security schemes and one skill per capability (plus
 * the conversation skill). {@link cardFor} adds the URLs for an origin.
 */
export function buildAgentCard(source: AgentCardSource): AgentCard {
  const { options } = source;
  const { agent, a2a } = options;
  const schemes = schemesOf(options, source.oauthServer);
  const securitySchemes = Object.fromEntries(Object.entries(schemes).map(([name, scheme]) => [name, toSecurityScheme(scheme)]));
  // The scheme a skill's scopes refer to (auth.oauth): a skill that needs scopes says which.
  const oauthScheme = options.auth.oauth ? Object.keys(schemes).find((name) => schemes[name].type === 'oauth2' || schemes[name].type === 'openIdConnect') : undefined;
  return {
    name: agent.name,
    description: agent.description ?? agent.name,
    supportedInterfaces: [],
    provider: undefined,
    version: a2a.version,
    capabilities: {
      streaming: true,
      pushNotifications: a2a.pushNotifications !== false,
      // An extended card needs a way to authenticate its caller, declared here (spec 3.1.11, 13.3).
      extendedAgentCard: Object.keys(securitySchemes).length > 0,
      extensions: source.capabilities.length
        ? [{
            uri: CAPABILITY_EXTENSION_URI,
            description: 'Call a capability by name: send a data part {"capability": "<skill id>", "arguments": {...}}; input and output schemas are in the RESTAP catalog.',
            required: false,
            params: { catalog: CATALOG_PATH, message: { capability: 'string', arguments: 'object' } },
          }]
        : [],
    },
    securitySchemes,
    // Any one of the schemes will do (each requirement is an alternative).
    securityRequirements: Object.keys(securitySchemes).map((name) => ({ schemes: { [name]: { list: [] } } })),
    defaultInputModes: [TEXT, JSON_MODE],
    defaultOutputModes: [TEXT, JSON_MODE],
    skills: [...(source.talk ? [talkSkill(options)] : []), ...source.capabilities.map((capability) => capabilitySkill(capability, oauthScheme ? { scheme: oauthScheme, scopes: requiredScopesOf(capability, options) } : undefined))],
    signatures: [],
  };
}

/**
 * The authenticated extended card (`GetExtendedAgentCard`, issue 38 item 4): the card with only the
 * skills this caller may use — with `auth.oauth`, a capability whose scopes its token lacks is left
 * out, as MCP's tools/list leaves it out. The conversation skill stays.
 */
export function extendedCardFor(card: AgentCard, capabilities: RegisteredCapability[], caller: RestapCaller, options: A2aDoorOptions): AgentCard {
  const denied = new Set(capabilities.filter((capability) => !mayCall(capability, caller, options)).map((capability) => capability.options.id));
  return denied.size ? { ...card, skills: card.skills.filter((skill) => !denied.has(skill.id)) } : card;
}

/**
 * The card as served from `origin` (`https://host`): the JSON-RPC interface (the preferred one,
 * first) and, unless `restPath` is false, the HTTP+JSON interface, each at 1.0 and at 0.3.
 */
export function cardFor(card: AgentCard, origin: string, path: string, restPath: string | false = false): AgentCard {
  const jsonRpc = { url: `${origin}${path}`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: A2A_PROTOCOL_VERSION };
  const rest = restPath === false ? [] : [{ url: `${origin}${restPath}`, protocolBinding: 'HTTP+JSON', tenant: '', protocolVersion: A2A_PROTOCOL_VERSION }];
  return { ...card, supportedInterfaces: duplicateInterfacesForLegacy([jsonRpc, ...rest], ['JSONRPC', ...(rest.length ? ['HTTP+JSON'] : [])]) };
}

function talkSkill(options: A2aDoorOptions): AgentSkill {
  return {
    id: TALK_SKILL_ID,
    name: options.talk.title,
    description: `${options.talk.description}. Send text; a reply in the same contextId continues the conversation.`,
    tags: ['conversation', 'chat'],
    examples: [],
    inputModes: [TEXT],
    outputModes: [TEXT],
    securityRequirements: [],
  };
}

function capabilitySkill(capability: RegisteredCapability, oauth?: { scheme: string; scopes: readonly string[] }): AgentSkill {
  const { options } = capability;
  const given = options.extra?.tags;
  const tags = Array.isArray(given) && given.every((t) => typeof t === 'string') ? (given as string[]) : [];
  const example = exampleArguments(capability.inputSchema);
  return {
    id: options.id,
    name: options.title,
    description: options.description ?? options.title,
    tags: [...new Set([...tags, 'capability', options.id.split('.')[0]])],
    examples: example ? [JSON.stringify({ capability: options.id, arguments: example })] : [],
    inputModes: [JSON_MODE],
    outputModes: [JSON_MODE],
    securityRequirements: oauth?.scopes.length ? [{ schemes: { [oauth.scheme]: { list: [...oauth.scopes] } } }] : [],
  };
}

/** Arguments built from the DTO's property examples (`@ApiProperty({ example })`), if every required one has one. */
function exampleArguments(schema: JsonSchema | undefined): Record<string, unknown> | undefined {
  const properties = schema?.properties as Record<string, { examples?: unknown[] }> | undefined;
  if (!properties) return undefined;
  const args: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(properties)) {
    if (Array.isArray(property?.examples) && property.examples.length) args[name] = property.examples[0];
  }
  const required = Array.isArray(schema?.required) ? (schema.required as string[]) : [];
  if (!Object.keys(args).length || required.some((name) => !(name in args))) return undefined;
  return args;
}

/**
 * The card's schemes: the `a2a.securitySchemes` option's, and with `auth.oauth` an `oauth2` scheme
 * naming the authorization server's metadata (unless the option declares one itself).
 */
function schemesOf(options: AgentCardSource['options'], server: AuthorizationServerInfo | undefined): Record<string, RestapA2aSecurityScheme> {
  const { securitySchemes } = options.a2a;
  const oauth = options.auth.oauth;
  if (!oauth || Object.values(securitySchemes).some((scheme) => scheme.type === 'oauth2' || scheme.type === 'openIdConnect')) return securitySchemes;
  const issuer = new URL(oauth.issuer);
  const path = issuer.pathname === '/' ? '' : issuer.pathname.replace(/\/$/, '');
  const description = `OAuth 2.1 access token (a JWT for the audience ${oauth.audience}) from ${oauth.issuer}, sent as Authorization: Bearer.`;
  const scopes = Object.fromEntries(scopesOf(options).map((scope) => [scope, `Needed by the capabilities that require ${scope}.`]));
  const grants = server?.grant_types_supported ?? ['authorization_code'];
  const flow: Extract<RestapA2aSecurityScheme, { type: 'oauth2' }>['flow'] = !server?.token_endpoint
    ? undefined
    : grants.includes('client_credentials')
      ? { type: 'clientCredentials', tokenUrl: server.token_endpoint, scopes }
      : server.authorization_endpoint
        ? { type: 'authorizationCode', authorizationUrl: server.authorization_endpoint, tokenUrl: server.token_endpoint, scopes, pkceRequired: true }
        : undefined;
  // A2A 0.3 cards need a flow: without the server's metadata, point to its OpenID discovery instead.
  const scheme: RestapA2aSecurityScheme = flow
    ? { type: 'oauth2', description, oauth2MetadataUrl: new URL(`/.well-known/oauth-authorization-server${path}`, issuer.origin).href, flow }
    : { type: 'openIdConnect', description, openIdConnectUrl: new URL(`${path}/.well-known/openid-configuration`, issuer.origin).href };
  return { ...securitySchemes, oauth2: scheme };
}

/** Every scope a capability requires. */
function scopesOf(options: AgentCardSource['options']): string[] {
  const oauth = options.auth.oauth;
  if (!oauth) return [];
  return oauth.scopesSupported ?? [...new Set(Object.values(oauth.requiredScopes).flat())];
}

function toSecurityScheme(scheme: RestapA2aSecurityScheme): SecurityScheme {
  if (scheme.type === 'http') {
    return { scheme: { $case: 'httpAuthSecurityScheme', value: { scheme: scheme.scheme, bearerFormat: scheme.bearerFormat ?? '', description: scheme.description ?? '' } } };
  }
  if (scheme.type === 'openIdConnect') {
    return { scheme: { $case: 'openIdConnectSecurityScheme', value: { openIdConnectUrl: scheme.openIdConnectUrl, description: scheme.description ?? '' } } };
  }
  if (scheme.type === 'oauth2') {
    const { flow } = scheme;
    const flows = flow === undefined
      ? undefined
      : flow.type === 'clientCredentials'
        ? { flow: { $case: 'clientCredentials' as const, value: { tokenUrl: flow.tokenUrl, refreshUrl: '', scopes: flow.scopes } } }
        : { flow: { $case: 'authorizationCode' as const, value: { authorizationUrl: flow.authorizationUrl, tokenUrl: flow.tokenUrl, refreshUrl: '', scopes: flow.scopes, pkceRequired: flow.pkceRequired ?? true } } };
    return { scheme: { $case: 'oauth2SecurityScheme', value: { description: scheme.description ?? '', flows, oauth2MetadataUrl: scheme.oauth2MetadataUrl } } };
  }
  return { scheme: { $case: 'apiKeySecurityScheme', value: { location: scheme.in, name: scheme.name, description: scheme.description ?? '' } } };
}
