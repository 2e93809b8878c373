/**
 * The words of the synthetic world: event templates per category, teams, names, comment and
 * article phrases. Plain data; the generator (generator.ts) picks from it with the seed.
 * People and films are fictional; teams, coins and institutions are real names used as scenery.
 */
import type { TagRec } from './model.ts';

export type Category = 'politics' | 'sports' | 'crypto' | 'economics' | 'tech' | 'science' | 'culture';

/** Tags of the world (ids like the venue's numeric tag ids). */
export const TAGS: readonly TagRec[] = [
  { id: '2', label: 'Politics', slug: 'politics' },
  { id: '144', label: 'Elections', slug: 'elections' },
  { id: '126', label: 'US Politics', slug: 'us-politics' },
  { id: '101', label: 'World', slug: 'world' },
  { id: '1', label: 'Sports', slug: 'sports' },
  { id: '745', label: 'NBA', slug: 'nba' },
  { id: '28', label: 'Basketball', slug: 'basketball' },
  { id: '100350', label: 'Soccer', slug: 'soccer' },
  { id: '306', label: 'EPL', slug: 'epl' },
  { id: '100639', label: 'Games', slug: 'games' },
  { id: '21', label: 'Crypto', slug: 'crypto' },
  { id: '235', label: 'Bitcoin', slug: 'bitcoin' },
  { id: '39', label: 'Ethereum', slug: 'ethereum' },
  { id: '818', label: 'Solana', slug: 'solana' },
  { id: '101267', label: 'XRP', slug: 'xrp' },
  { id: '1312', label: 'Dogecoin', slug: 'dogecoin' },
  { id: '102127', label: 'Up or Down', slug: 'up-or-down' },
  { id: '1312001', label: 'Crypto Prices', slug: 'crypto-prices' },
  { id: '100328', label: 'Economy', slug: 'economy' },
  { id: '159', label: 'Fed', slug: 'fed' },
  { id: '702', label: 'Fed Rates', slug: 'fed-rates' },
  { id: '1401', label: 'Tech', slug: 'tech' },
  { id: '439', label: 'AI', slug: 'ai' },
  { id: '1013', label: 'Big Tech', slug: 'big-tech' },
  { id: '74', label: 'Science', slug: 'science' },
  { id: '87', label: 'Space', slug: 'space' },
  { id: '103037', label: 'Climate', slug: 'climate' },
  { id: '596', label: 'Culture', slug: 'pop-culture' },
  { id: '53', label: 'Movies', slug: 'movies' },
  { id: '340', label: 'Music', slug: 'music' },
  { id: '1187', label: 'Awards', slug: 'awards' },
];

/** A static event: a title, its markets' questions and how far away its end is. */
export interface EventTemplate {
  key: string;
  category: Category;
  title: string;
  description: string;
  tags: string[];
  /**
   * Questions of the markets, in display order ({year}, {month} are filled in from the world's
   * start; {end}, {endYear} from the event's end date: a question with a calendar date uses {end},
   * so that no world lists a date already past).
   */
  markets: string[];
  negRisk?: boolean;
  /** End date range, days from the seeding time. */
  endDays: [number, number];
  series?: { slug: string; title: string; recurrence: 'daily' | 'weekly' | 'monthly' | 'hourly' };
  /** Always part of the world (the rest is drawn by the seed). */
  core?: boolean;
}

export const EVENT_TEMPLATES: readonly EventTemplate[] = [
  {
    key: 'presidential-election-winner-2028',
    category: 'politics',
    title: 'Presidential Election Winner 2028',
    description:
      'This event is about who will win the 2028 US Presidential Election. Each market resolves to "Yes" if the named candidate is projected the winner by a consensus of major networks, and to "No" otherwise.',
    tags: ['Politics', 'Elections', 'US Politics'],
    markets: ['Avery Collins', 'Jordan Reyes', 'Morgan Blake', 'Casey Whitfield', 'Riley Okafor', 'Taylor Brennan'].map(
      (n) => `Will ${n} win the 2028 US Presidential Election?`,
    ),
    negRisk: true,
    endDays: [900, 1000],
    core: true,
  },
  {
    key: 'canada-largest-party',
    category: 'politics',
    title: 'Largest party after the next Canadian federal election',
    description:
      'Which party will win the most seats in the next Canadian federal election? Resolves by the official seat count published by Elections Canada.',
    tags: ['Politics', 'Elections', 'World'],
    markets: ['Liberal', 'Conservative', 'New Democratic', 'Bloc Québécois'].map(
      (p) => `Will the ${p} Party win the most seats in the next Canadian federal election?`,
    ),
    negRisk: true,
    endDays: [300, 500],
  },
  {
    key: 'us-politics-{year}',
    category: 'politics',
    title: 'Washington in {year}',
    description:
      'A set of questions on US federal politics this year. Each market resolves on the official record (Congress.gov, the Federal Register, the White House).',
    tags: ['Politics', 'US Politics'],
    markets: [
      'Will a federal government shutdown begin before {end}?',
      'Will the Senate confirm a new Fed governor by {end}?',
      'Will the President sign a crypto market-structure bill in {year}?',
    ],
    endDays: [60, 200],
  },
  {
    key: 'state-of-the-union-mentions',
    category: 'politics',
    title: 'What will be said at the State of the Union?',
    description: 'Markets on words spoken during the next State of the Union address, per the official transcript.',
    tags: ['Politics', 'US Politics'],
    markets: [
      'Will the President say "Bitcoin" during the State of the Union?',
      'Will the President say "tariff" 10+ times during the State of the Union?',
      'Will the State of the Union last longer than 75 minutes?',
    ],
    endDays: [3, 20],
  },
  {
    key: 'nba-champion-{year}',
    category: 'sports',
    title: 'NBA Champion {endYear}',
    description: 'Which team will win the NBA Finals this season? Resolves when the league crowns the champion.',
    tags: ['Sports', 'NBA', 'Basketball'],
    markets: [
      'Boston Celtics',
      'Oklahoma City Thunder',
      'Denver Nuggets',
      'New York Knicks',
      'Cleveland Cavaliers',
    ].map((t) => `Will the ${t} win the {endYear} NBA Finals?`),
    negRisk: true,
    endDays: [120, 180],
    series: { slug: 'nba-champion', title: 'NBA Champion', recurrence: 'monthly' },
  },
  {
    key: 'epl-winner',
    category: 'sports',
    title: 'Premier League Winner',
    description: 'Which club will finish top of the English Premier League this season? Resolves on the final table.',
    tags: ['Sports', 'Soccer', 'EPL'],
    markets: ['Liverpool', 'Arsenal', 'Manchester City', 'Chelsea'].map((t) => `Will ${t} win the Premier League?`),
    negRisk: true,
    endDays: [100, 160],
  },
  {
    key: 'fed-decision-{monthSlug}',
    category: 'economics',
    title: 'Fed decision in {month}',
    description:
      'What will the FOMC decide at its {month} meeting? Resolves on the target range announced in the FOMC statement.',
    tags: ['Economy', 'Fed', 'Fed Rates'],
    markets: [
      'Will the Fed make no change to rates in {month}?',
      'Will the Fed cut rates by 25 bps in {month}?',
      'Will the Fed cut rates by 50+ bps in {month}?',
      'Will the Fed raise rates by 25+ bps in {month}?',
    ],
    negRisk: true,
    endDays: [20, 45],
    series: { slug: 'fed-interest-rates', title: 'Fed Interest Rates', recurrence: 'monthly' },
    core: true,
  },
  {
    key: 'us-economy-{year}',
    category: 'economics',
    title: 'US economy in {year}',
    description: 'Questions on the US economy, resolved on official BEA and BLS releases.',
    tags: ['Economy'],
    markets: [
      'US recession in {year}?',
      'Will US CPI inflation be above 3.0% in the next release?',
      'Will the US unemployment rate reach 4.5% by {end}?',
    ],
    endDays: [30, 330],
  },
  {
    key: 'ai-model-releases',
    category: 'tech',
    title: 'AI model releases by {end}',
    description:
      'Will these frontier AI models be publicly released by {end}? "Released" means generally available to the public through an app or API.',
    tags: ['Tech', 'AI'],
    markets: [
      'Will OpenAI release GPT-6 by {end}?',
      'Will Google release Gemini 4 by {end}?',
      'Will an open-weights model top the LMArena text leaderboard by {end}?',
    ],
    endDays: [60, 150],
    core: true,
  },
  {
    key: 'largest-company-end-of-{year}',
    category: 'tech',
    title: 'Largest company by market cap at the end of {year}',
    description:
      'Which company will have the largest market capitalisation on December 31? Resolves on closing prices.',
    tags: ['Tech', 'Big Tech', 'Economy'],
    markets: ['Nvidia', 'Microsoft', 'Apple', 'Alphabet', 'Amazon'].map(
      (c) => `Will ${c} be the largest company in the world at the end of {year}?`,
    ),
    negRisk: true,
    endDays: [150, 330],
  },
  {
    key: 'apple-foldable',
    category: 'tech',
    title: 'Apple foldable iPhone in {year}?',
    description: 'Will Apple announce a foldable iPhone this year? Resolves "Yes" on an official Apple announcement.',
    tags: ['Tech', 'Big Tech'],
    markets: [
      'Will Apple announce a foldable iPhone in {year}?',
      'Will Apple announce a smart home display in {year}?',
    ],
    endDays: [90, 300],
  },
  {
    key: 'hottest-year-{year}',
    category: 'science',
    title: 'Will {year} be the hottest year on record?',
    description: 'Resolves on NASA GISTEMP and Copernicus annual global temperature anomalies.',
    tags: ['Science', 'Climate'],
    markets: ['Will {year} be the hottest year on record?', 'Will Arctic sea ice reach a record low by {end}?'],
    endDays: [200, 330],
  },
  {
    key: 'space-missions-{year}',
    category: 'science',
    title: 'Space missions in {year}',
    description: 'Launch and landing milestones this year, per the agencies and companies involved.',
    tags: ['Science', 'Space'],
    markets: [
      'Will Starship reach orbit by {end}?',
      'Will Artemis II launch by {end}?',
      'Will a private lander touch down on the Moon in {year}?',
    ],
    endDays: [45, 300],
    core: true,
  },
  {
    key: 'big-earthquake',
    category: 'science',
    title: 'Magnitude 8.0+ earthquake by end of month?',
    description:
      'Resolves "Yes" if the USGS records an earthquake of magnitude 8.0 or higher anywhere in the world before the end of the month.',
    tags: ['Science'],
    markets: ['Will a magnitude 8.0+ earthquake happen by the end of the month?'],
    endDays: [10, 30],
  },
  {
    key: 'oscars-best-picture',
    category: 'culture',
    title: 'Oscars: Best Picture winner',
    description: 'Which film will win Best Picture at the next Academy Awards? Resolves on the ceremony.',
    tags: ['Culture', 'Movies', 'Awards'],
    markets: [
      'The Long Harbor',
      'Glass Orchard',
      'Saint Elsewhere Road',
      'Northern Lights Hotel',
      'A Quiet Frequency',
    ].map((f) => `Will "${f}" win Best Picture?`),
    negRisk: true,
    endDays: [60, 120],
    core: true,
  },
  {
    key: 'box-office-weekend',
    category: 'culture',
    title: 'Box office this weekend',
    description: 'Domestic opening-weekend grosses as reported by Box Office Mojo.',
    tags: ['Culture', 'Movies'],
    markets: ['Will "Velocity Run" gross $100M+ in its opening weekend?', 'Will "The Paper Moon Affair" open at #1?'],
    endDays: [3, 8],
  },
  {
    key: 'spotify-top-artist',
    category: 'culture',
    title: 'Top Spotify artist this month',
    description: 'Which artist will have the most monthly listeners on Spotify on the last day of the month?',
    tags: ['Culture', 'Music'],
    markets: ['Marina Vale', 'Otis Kane', 'Lumen', 'The Midnight Choir'].map(
      (a) => `Will ${a} be the top Spotify artist this month?`,
    ),
    negRisk: true,
    endDays: [8, 30],
  },
];

/** Crypto up/down series: a market per window that rolls as each one ends. */
export interface RollingCrypto {
  symbol: 'btcusdt' | 'ethusdt' | 'solusdt' | 'xrpusdt' | 'dogeusdt';
  windowMin: number;
  /** Series slug, e.g. "btc-up-or-down-5m". */
  slug: string;
  core?: boolean;
}

export const ROLLING_CRYPTO: readonly RollingCrypto[] = [
  { symbol: 'btcusdt', windowMin: 5, slug: 'btc-up-or-down-5m', core: true },
  { symbol: 'ethusdt', windowMin: 15, slug: 'eth-up-or-down-15m', core: true },
  { symbol: 'solusdt', windowMin: 15, slug: 'sol-up-or-down-15m' },
  { symbol: 'xrpusdt', windowMin: 60, slug: 'xrp-up-or-down-hourly' },
  { symbol: 'dogeusdt', windowMin: 60, slug: 'doge-up-or-down-hourly' },
  { symbol: 'btcusdt', windowMin: 1440, slug: 'btc-up-or-down-daily', core: true },
];

/** Sports with games that roll (a new game event when one is over). */
export interface GameSport {
  sport: string;
  label: string;
  tags: string[];
  teams: readonly string[];
  /** Three-way (home / draw / away, neg-risk) or two-way with spread and total markets. */
  threeWay: boolean;
  /** Game length range in minutes (short, so games finish within a run). */
  minutes: [number, number];
  seriesSlug: string;
  seriesTitle: string;
}

export const GAME_SPORTS: readonly GameSport[] = [
  {
    sport: 'nba',
    label: 'Basketball (NBA)',
    tags: ['Sports', 'NBA', 'Basketball', 'Games'],
    teams: [
      'Lakers',
      'Warriors',
      'Celtics',
      'Knicks',
      'Heat',
      'Bucks',
      'Suns',
      'Nuggets',
      'Thunder',
      'Mavericks',
      'Cavaliers',
      'Timberwolves',
    ],
    threeWay: false,
    minutes: [14, 30],
    seriesSlug: 'nba-games',
    seriesTitle: 'NBA Games',
  },
  {
    sport: 'epl',
    label: 'Soccer (Premier League)',
    tags: ['Sports', 'Soccer', 'EPL', 'Games'],
    teams: [
      'Arsenal',
      'Chelsea',
      'Liverpool',
      'Manchester City',
      'Manchester United',
      'Tottenham',
      'Newcastle',
      'Aston Villa',
      'Brighton',
      'West Ham',
    ],
    threeWay: true,
    minutes: [18, 35],
    seriesSlug: 'epl-games',
    seriesTitle: 'Premier League Games',
  },
];

/** Sports listed by the metadata API without live games in the world. */
export const OTHER_SPORTS: ReadonlyArray<{ sport: string; label: string; tags: string[] }> = [
  { sport: 'nfl', label: 'American Football (NFL)', tags: ['Sports'] },
  { sport: 'mlb', label: 'Baseball (MLB)', tags: ['Sports'] },
];

export const FIRST_NAMES = [
  'Alex',
  'Sam',
  'Jamie',
  'Chris',
  'Pat',
  'Robin',
  'Dana',
  'Lee',
  'Kim',
  'Noor',
  'Ines',
  'Mateo',
  'Yuki',
  'Priya',
  'Omar',
  'Lena',
  'Tomás',
  'Ada',
  'Kofi',
  'Mila',
  'Hugo',
  'Sasha',
  'Ravi',
  'Elif',
  'Bruno',
  'Zoe',
  'Arjun',
  'Freya',
  'Diego',
  'Hana',
] as const;

export const HANDLE_A = [
  'Swift',
  'Quiet',
  'Lucky',
  'Bold',
  'Clever',
  'Sharp',
  'Patient',
  'Contrarian',
  'Degen',
  'Calm',
  'Based',
  'Early',
  'Late',
  'Honest',
  'Rational',
] as const;
export const HANDLE_B = [
  'Eagle',
  'Whale',
  'Fox',
  'Oracle',
  'Trader',
  'Quant',
  'Owl',
  'Bettor',
  'Hedger',
  'Punter',
  'Analyst',
  'Shark',
  'Tortoise',
  'Raven',
  'Bayesian',
] as const;

export const BIOS = [
  'Forecasting for fun, losing money for real.',
  'Ex-sportsbook trader. Base rates or bust.',
  'I read the resolution criteria so you do not have to.',
  'Politics junkie, spreadsheet enjoyer.',
  'Macro tourist. Mostly Fed markets.',
  'Long volatility, short certainty.',
  'Crypto since 2017. Up or down, never sideways.',
  'Superforecaster wannabe.',
  '',
  '',
] as const;

/** Comment bodies; {q} is the market question or event title, {o} an outcome word. */
export const COMMENT_BODIES = [
  'This is way too cheap at these odds.',
  'Market is sleeping on this one.',
  'Bought more {o} on the dip.',
  'Anyone else think {o} is mispriced here?',
  'Read the resolution criteria carefully before you bet on "{q}"',
  'Easy money imo.',
  'Sold my position, the risk/reward is gone.',
  'Whales moving the price again.',
  'The spread on this market is brutal.',
  'Source? I have not seen any confirmation yet.',
  'Called it last week.',
  'Holding {o} to resolution.',
  'This will be decided by the last few minutes, as always.',
  'The favourite is overpriced. Fading.',
  'Liquidity finally showed up.',
  'Who is buying {o} at this price?',
  'Big news incoming, watch this one.',
  'Ngl I have no idea but I am in.',
  'Base rate says {o}.',
  'Great market, thanks for listing.',
] as const;

export const REPLY_BODIES = [
  'Agreed.',
  'Hard disagree, the data says otherwise.',
  'Cope.',
  'Good point, adjusting my position.',
  'We will see at resolution.',
  'Source?',
  'This aged well.',
  'Same, doubled down.',
] as const;

export const ARTICLE_AUTHORS = [
  'Mira Castell',
  'Jon Adebayo',
  'Elena Sorrow',
  'Kai Lindqvist',
  'Priya Natarajan',
  'Theo Marchetti',
] as const;

export const ARTICLE_TITLES = [
  'What the market says about "{t}"',
  'Odds shift on {t}',
  '{t}: traders weigh in',
  'Why the crowd is moving on {t}',
  'Inside the order book: {t}',
  '{t} — the case for and against',
] as const;

export const ARTICLE_PARAGRAPHS = [
  'Prediction markets have been active on this question, with prices moving several points over the past week as new information arrived.',
  'Traders point to a handful of catalysts ahead of the resolution date, and liquidity has deepened as market makers tightened their quotes.',
  'The leading outcome remains the favourite, but a persistent bid for the alternatives suggests the crowd is far from certain.',
  'Volume picked up sharply after the latest headlines, with several large orders crossing the spread within minutes.',
  'As always, the resolution criteria matter: read them closely before taking a position.',
  'Some participants argue the market is overreacting to noise, while others see the recent move as the start of a trend.',
] as const;
