import { catalogFixture } from '../testing/fake-fetch';
import { exampleFor } from './schema-example';
import { renderSkill, skillName } from './skill.renderer';

describe('renderSkill', () => {
  const catalog = {
    ...catalogFixture([
      { id: 'jobs.get', title: 'Get a job', method: 'GET', endpoint: '/jobs/{id}' },
      { id: 'text.echo', method: 'POST', endpoint: '/text/echo', input_schema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
    ]),
    agent: { name: "Bob's Text Agent!", description: 'Analyses "text"' },
  };
  const skill = renderSkill(catalog, 'https://bob.example/');

  it('writes YAML front matter with a valid skill name and a quoted description', () => {
    expect(skillName("Bob's Text Agent!")).toBe('bob-s-text-agent');
    expect(skill.startsWith('---\nname: bob-s-text-agent\ndescription: "Analyses \\"text\\". Capabilities: Get a job, text.echo.')).toBe(true);
  });

  it('documents talk vs news and the session secret', () => {
    expect(skill).toContain('## Talk: POST /talk (gets a reply)');
    expect(skill).toContain('## News: GET / POST /news (never gets a reply)');
    expect(skill).toContain('**The session_id is a secret**');
    expect(skill).toContain('Restap-Session-Id');
  });

  it('gives each capability its schema and a curl example', () => {
    expect(skill).toContain("curl -sS -X GET 'https://bob.example/jobs/<id>'");
    expect(skill).toContain(`-d '{"text":"Hello world"}'`);
    expect(skill).toContain('Input schema (request body):');
  });
});

describe('exampleFor', () => {
  it('prefers the schema\'s own examples, then builds one by type', () => {
    expect(exampleFor({ type: 'string', examples: ['hi'] })).toBe('hi');
    expect(exampleFor({ enum: ['a', 'b'] })).toBe('a');
    expect(exampleFor({ type: 'object', properties: { n: { type: 'integer', minimum: 3 }, at: { type: 'string', format: 'date-time' } }, required: ['n', 'at'] }))
      .toEqual({ n: 3, at: '2025-01-01T12:00:00Z' });
    expect(exampleFor({ type: 'array', items: { type: 'boolean' } })).toEqual([true]);
  });
});
