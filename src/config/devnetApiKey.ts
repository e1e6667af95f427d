// The devnet's API key, printed in its curl commands so that they keep their documented statuses
// while execute is priced (a request with a valid key is not charged). Public: devnet only, refused
// in production like the devnet's account keys.
export const devnetApiKey = 'devnet-demo-api-key-not-a-secret'
