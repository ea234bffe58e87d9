import { describe, expect, it } from 'vitest';
import { suspicionOf } from './suspicious.service.ts';

describe('suspicionOf', () => {
  it('marks error lines, and no results against the median of earlier runs of at least 10', () => {
    expect(suspicionOf(0, 25, [30, 30])).toBeNull();
    expect(suspicionOf(2, 25, [])).toEqual({ reasons: ['error_lines'], usual_results: 0 });
    expect(suspicionOf(0, 0, [100, 0, 90])).toEqual({ reasons: ['no_results'], usual_results: 90 });
    expect(suspicionOf(1, 0, [12, 10])).toEqual({ reasons: ['error_lines', 'no_results'], usual_results: 11 });
  });

  it('an empty run of a spider that never stored much, or that has no earlier run, is not suspicious', () => {
    expect(suspicionOf(0, 0, [])).toBeNull();
    expect(suspicionOf(0, 0, [0, 3, 9])).toBeNull();
    expect(suspicionOf(0, 0, [500, 0, 0])).toBeNull();
  });
});
