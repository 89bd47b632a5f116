import { isPublicAddress, webhookProblem } from './push-webhook.guard';

// Issue 38, item 3: the webhook URL is checked against SSRF.
describe('push webhook SSRF guard (issue 38, item 3)', () => {
  const policy = { allowHosts: [] as string[], allowHttp: true };
  const resolvesTo = (...addresses: string[]) => async () => addresses;

  it.each(['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', 'fe80::1', 'fd00::1', '::ffff:127.0.0.1', '224.0.0.1'])('%s is not public', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111'])('%s is public', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  it('refuses loopback and private literals, and names that resolve to them, unless the host is allowed', async () => {
    expect(await webhookProblem('http://127.0.0.1:8080/hook', policy)).toMatch(/loopback, private or link-local/);
    expect(await webhookProblem('http://[::1]/hook', policy)).toMatch(/loopback/);
    expect(await webhookProblem('https://hooks.example/x', policy, resolvesTo('93.184.216.34', '10.0.0.5'))).toMatch(/private/);
    expect(await webhookProblem('https://hooks.example/x', policy, resolvesTo('93.184.216.34'))).toBeUndefined();
    expect(await webhookProblem('http://127.0.0.1:8080/hook', { ...policy, allowHosts: ['127.0.0.1'] })).toBeUndefined();
    expect(await webhookProblem('http://[::1]:8080/hook', { ...policy, allowHosts: ['::1'] })).toBeUndefined();
    expect(await webhookProblem('http://10.0.0.1/hook', { ...policy, allowHosts: '*' })).toBeUndefined();
  });

  it('refuses other schemes, http when not allowed, credentials in the URL, names that do not resolve', async () => {
    expect(await webhookProblem('file:///etc/passwd', policy)).toMatch(/http: or https:/);
    expect(await webhookProblem('not a url', policy)).toMatch(/absolute URL/);
    expect(await webhookProblem('http://hooks.example/x', { ...policy, allowHttp: false }, resolvesTo('93.184.216.34'))).toMatch(/https:/);
    expect(await webhookProblem('https://user:pw@hooks.example/x', policy, resolvesTo('93.184.216.34'))).toMatch(/credentials/);
    expect(await webhookProblem('https://nowhere.invalid/x', policy, async () => { throw new Error('ENOTFOUND'); })).toMatch(/does not resolve/);
  });
});
