/** The `doctor.*` section of the configuration: the checks of `mmkit doctor`. */
export const doctorSchema = {
  maxClockSkewMs: {
    doc: "`mmkit doctor`: the largest difference between this machine's clock and the venue's (GET /time) that passes, ms (warned past half of it).",
    format: 'nat',
    default: 5_000,
    env: 'MMKIT_DOCTOR_MAX_CLOCK_SKEW_MS',
  },
  geoblockUrl: {
    doc: "`mmkit doctor`: the venue's geoblock endpoint ({blocked, ip, country, region}); empty: <bot.exchangeUrl>/api/geoblock for a paper exchange, none otherwise (a warn).",
    format: 'http-url-or-empty',
    default: '',
    env: 'MMKIT_DOCTOR_GEOBLOCK_URL',
  },
  beforeRun: {
    doc: '`mmkit run` against a live venue (not paper: venue.kind) runs the doctor first and refuses to start when a check fails; false skips it (at your own risk).',
    format: Boolean,
    default: true,
    env: 'MMKIT_DOCTOR_BEFORE_RUN',
  },
};

export type DoctorConfig = { maxClockSkewMs: number; geoblockUrl: string; beforeRun: boolean };
