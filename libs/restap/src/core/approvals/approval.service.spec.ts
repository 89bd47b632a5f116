import { canonicalJson } from './approval.service';
import { approvalQuestionText } from './turn-approvals';

describe('canonicalJson: an approval binds arguments, not their key order (issue 35, item 2)', () => {
  it('renders objects with sorted keys at every depth, arrays in their order', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { z: 1, y: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[2,{"y":2,"z":1}]},"b":1}');
    expect(canonicalJson({ text: 'x', n: 1 })).toBe(canonicalJson({ n: 1, text: 'x' }));
  });

  it('tells different arguments apart', () => {
    expect(canonicalJson({ text: 'a' })).not.toBe(canonicalJson({ text: 'b' }));
    expect(canonicalJson({ quantity: 1 })).not.toBe(canonicalJson({ quantity: '1' }));
    expect(canonicalJson([1, 2])).not.toBe(canonicalJson([2, 1]));
  });
});

describe('approvalQuestionText: plain clients read the question in the reply (issue 35, item 3)', () => {
  const one = { id: 'apr_1', capability: 'text.reverse', arguments: {}, question: 'Reverse it?', expires_at: '2026-01-01T00:00:00.000Z' };

  it('one approval: the question, its id and deadline, and how to answer in words', () => {
    expect(approvalQuestionText([one])).toBe('Approval needed: Reverse it? (approval apr_1, until 2026-01-01T00:00:00.000Z). Answer "approve" or "deny".');
  });

  it('several: each on its line, answered by id (a plain word would not say which)', () => {
    const text = approvalQuestionText([one, { ...one, id: 'apr_2', question: 'Echo it?' }]);
    expect(text.split('\n')).toEqual([
      'Approvals needed:',
      '- Reverse it? (approval apr_1, until 2026-01-01T00:00:00.000Z)',
      '- Echo it? (approval apr_2, until 2026-01-01T00:00:00.000Z)',
      'Answer "approve" or "deny" with the approval\'s id ({"approval": {"id": "apr_…", "decision": "approve"}}).',
    ]);
  });
});
