import { describe, expect, it } from 'vitest';
import {
  isTourFinished,
  markTourFinished,
  readFinishedTours,
  shouldShowTour,
  TOUR_FINAL_STEPS,
  TOUR_NAMES,
  TOUR_STEPS,
  stepText,
  tourEndResult,
} from './tours.ts';
import zh from '../../locales/zh/tours.ts';
import en from '../../locales/en/tours.ts';

function memory(init: Record<string, string> = {}) {
  const m = new Map(Object.entries(init));
  return { getItem: (k: string) => m.get(k) ?? null, setItem: (k: string, v: string) => void m.set(k, v), m };
}

describe('tours', () => {
  it('has the agreed final steps, each tour with final step + 1 steps', () => {
    expect(TOUR_FINAL_STEPS).toEqual({
      'spider-list': 3,
      'spider-list-add': 8,
      'spider-detail': 9,
      'spider-detail-config': 12,
      'task-list': 4,
      'task-detail': 7,
      'node-detail': 4,
      'schedule-list': 1,
      'schedule-list-add': 8,
      setting: 2,
    });
    for (const name of TOUR_NAMES) expect(TOUR_STEPS[name].length - 1, name).toBe(TOUR_FINAL_STEPS[name]);
  });

  it('has unique text keys, each with a title and a description in zh and en', () => {
    const all = TOUR_NAMES.flatMap((n) => TOUR_STEPS[n].map(stepText));
    expect(new Set(all).size).toBe(all.length);
    for (const target of all) {
      for (const texts of [zh, en] as Array<Record<string, unknown>>) {
        const t = texts[target] as { title?: string; desc?: string } | undefined;
        expect(t?.title, target).toBeTruthy();
        expect(t?.desc, target).toBeTruthy();
      }
    }
  });

  it('ends as completed only on the final step, otherwise skipped', () => {
    expect(tourEndResult(3, 3)).toBe('completed');
    expect(tourEndResult(0, 3)).toBe('skipped');
    expect(tourEndResult(2, 3)).toBe('skipped');
    expect(tourEndResult(0, 0)).toBe('completed');
    expect(tourEndResult(12, TOUR_FINAL_STEPS['spider-detail-config'])).toBe('completed');
  });

  it('marks tours finished by name in localStorage "tour" as a JSON map', () => {
    const s = memory();
    expect(isTourFinished('spider-list', s)).toBe(false);
    markTourFinished('spider-list', s);
    markTourFinished('setting', s);
    expect(JSON.parse(s.m.get('tour')!)).toEqual({ 'spider-list': 1, setting: 1 });
    expect(isTourFinished('spider-list', s)).toBe(true);
    expect(isTourFinished('task-list', s)).toBe(false);
  });

  it('reads a legacy list and tolerates a corrupt value', () => {
    expect([...readFinishedTours(memory({ tour: '["task-list"]' }))]).toEqual(['task-list']);
    expect(readFinishedTours(memory({ tour: '{oops' })).size).toBe(0);
    const s = memory({ tour: '["task-list"]' });
    markTourFinished('setting', s);
    expect(JSON.parse(s.m.get('tour')!)).toEqual({ 'task-list': 1, setting: 1 });
  });

  it('shows a tour only with enableTutorial "1" and not finished', () => {
    expect(shouldShowTour('setting', memory())).toBe(false);
    expect(shouldShowTour('setting', memory({ enableTutorial: '0' }))).toBe(false);
    expect(shouldShowTour('setting', memory({ enableTutorial: '1' }))).toBe(true);
    expect(shouldShowTour('setting', memory({ enableTutorial: '1', tour: '{"setting":1}' }))).toBe(false);
  });
});
