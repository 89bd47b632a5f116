import type { RegisteredCapability } from '../../core/registry/restap.registry';
import { resolveOptions } from '../../restap-options.resolver';
import { buildAgentCard, cardFor } from './agent-card.factory';
import { CAPABILITY_EXTENSION_URI } from './a2a.constants';

const capability = (id: string, title: string, inputSchema?: Record<string, unknown>, extra: Record<string, unknown> = {}): RegisteredCapability =>
  ({ options: { id, title, ...extra }, className: 'C', methodName: 'm', method: 'POST', endpoint: `/${id}`, inputSchema }) as unknown as RegisteredCapability;

const options = resolveOptions({
  agent: { name: 'Agent', description: 'Does things' },
  a2a: { enabled: true, version: '2.1.0', securitySchemes: { key: { type: 'apiKey', in: 'header', name: 'X-API-Key' } } },
});

describe('agent card factory', () => {
  it('one skill per capability; examples only when every required property has a DTO example', () => {
    const card = buildAgentCard({
      options,
      talk: false,
      capabilities: [
        capability('text.echo', 'Echo', { type: 'object', required: ['text'], properties: { text: { type: 'string', examples: ['Hi'] } } }, { extra: { tags: ['demo'] } }),
        capability('math.add', 'Add', { type: 'object', required: ['a', 'b'], properties: { a: { examples: [1] }, b: {} } }),
      ],
    });
    expect(card.skills.map((s) => [s.id, s.name, s.tags, s.examples])).toEqual([
      ['text.echo', 'Echo', ['demo', 'capability', 'text'], ['{"capability":"text.echo","arguments":{"text":"Hi"}}']],
      ['math.add', 'Add', ['capability', 'math'], []],
    ]);
    expect(card.capabilities?.extensions.map((e) => e.uri)).toEqual([CAPABILITY_EXTENSION_URI]);
  });

  it('no capabilities: no capability extension; talk adds the conversation skill first', () => {
    const card = buildAgentCard({ options, talk: true, capabilities: [] });
    expect(card.capabilities?.extensions).toEqual([]);
    expect(card.skills.map((s) => s.id)).toEqual(['talk']);
  });

  it('security schemes as A2A security schemes, each one an alternative requirement', () => {
    const card = buildAgentCard({ options, talk: true, capabilities: [] });
    expect(card.securitySchemes).toEqual({ key: { scheme: { $case: 'apiKeySecurityScheme', value: { location: 'header', name: 'X-API-Key', description: '' } } } });
    expect(card.securityRequirements).toEqual([{ schemes: { key: { list: [] } } }]);
    expect(card.version).toBe('2.1.0');
  });

  it('interfaces: the JSON-RPC endpoint at the origin, at protocol 1.0 and 0.3', () => {
    const card = cardFor(buildAgentCard({ options, talk: true, capabilities: [] }), 'https://agent.example.com', '/a2a');
    expect(card.supportedInterfaces.map((i) => `${i.protocolBinding} ${i.protocolVersion} ${i.url}`)).toEqual([
      'JSONRPC 1.0 https://agent.example.com/a2a',
      'JSONRPC 0.3 https://agent.example.com/a2a',
    ]);
  });
});
