// The databases themselves: to be filled in (PostgreSQL cut and healed, a partition longer than a lease, Redis stopped).
import type { Campaign } from '../campaign.ts'
import type { Fleet } from './startFleet.ts'

export async function databasePhase(_campaign: Campaign, _fleet: Fleet): Promise<void> {}
