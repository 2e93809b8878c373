/** The paper wallet's file name inside the data directory (a module of its own: read without loading ethers). */
export const PAPER_WALLET_FILE = 'paper-wallet.key';
