// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Policy} from "./IntentTypes.sol";

/// @notice Stores policies by id. A policy id is derived from its owner and a salt the owner
/// chooses, so nobody can register an id that another owner will want, and a policy's owner never
/// changes: a policy cannot be handed to someone else to spend their deposit. The owner may name
/// delegate signers (agent keys) whose signatures count for intents under that policy only.
contract PolicyRegistry {
    mapping(bytes32 => Policy) private policies;
    /// @dev Bumped when a policy is removed, so that its delegates do not outlive it.
    mapping(bytes32 => uint256) private generations;
    mapping(bytes32 => mapping(uint256 => mapping(address => bool))) private delegates;

    event PolicyCreated(bytes32 indexed policyId, address indexed owner, bytes32 salt);
    event PolicyUpdated(bytes32 indexed policyId, address indexed owner);
    event PolicyRemoved(bytes32 indexed policyId, address indexed owner);
    event DelegateAdded(bytes32 indexed policyId, address indexed delegate);
    event DelegateRevoked(bytes32 indexed policyId, address indexed delegate);

    error NotPolicyOwner(bytes32 policyId, address caller);
    error InvalidPolicyOwner();
    error PolicyExists(bytes32 policyId);
    error UnknownPolicy(bytes32 policyId);
    error InvalidDelegate();

    modifier onlyPolicyOwner(bytes32 policyId) {
        address owner = policies[policyId].owner;
        if (owner == address(0)) revert UnknownPolicy(policyId);
        if (owner != msg.sender) revert NotPolicyOwner(policyId, msg.sender);
        _;
    }

    /// @notice The id of `owner`'s policy created with `salt`.
    function policyIdOf(address owner, bytes32 salt) public pure returns (bytes32) {
        return keccak256(abi.encode(owner, salt));
    }

    /// @notice Creates the caller's policy `policyIdOf(msg.sender, salt)`; `policy.owner` must be the caller.
    function createPolicy(bytes32 salt, Policy calldata policy) external returns (bytes32 policyId) {
        if (policy.owner != msg.sender) revert InvalidPolicyOwner();
        policyId = policyIdOf(msg.sender, salt);
        if (policies[policyId].owner != address(0)) revert PolicyExists(policyId);
        policies[policyId] = policy;
        emit PolicyCreated(policyId, msg.sender, salt);
    }

    /// @notice Changes a policy's terms; its owner stays the same.
    function updatePolicy(bytes32 policyId, Policy calldata policy) external onlyPolicyOwner(policyId) {
        if (policy.owner != msg.sender) revert InvalidPolicyOwner();
        policies[policyId] = policy;
        emit PolicyUpdated(policyId, msg.sender);
    }

    /// @notice Removes a policy and its delegates. Only its owner can create it again.
    function removePolicy(bytes32 policyId) external onlyPolicyOwner(policyId) {
        delete policies[policyId];
        generations[policyId] += 1;
        emit PolicyRemoved(policyId, msg.sender);
    }

    function addDelegate(bytes32 policyId, address delegate) external onlyPolicyOwner(policyId) {
        if (delegate == address(0)) revert InvalidDelegate();
        delegates[policyId][generations[policyId]][delegate] = true;
        emit DelegateAdded(policyId, delegate);
    }

    function revokeDelegate(bytes32 policyId, address delegate) external onlyPolicyOwner(policyId) {
        delegates[policyId][generations[policyId]][delegate] = false;
        emit DelegateRevoked(policyId, delegate);
    }

    /// @notice Whether `signer` may sign intents of `owner` under `policyId`.
    function isDelegate(bytes32 policyId, address owner, address signer) external view returns (bool) {
        return owner != address(0) && policies[policyId].owner == owner && delegates[policyId][generations[policyId]][signer];
    }

    function getPolicy(bytes32 policyId) external view returns (Policy memory) {
        return policies[policyId];
    }

    function policyExists(bytes32 policyId) external view returns (bool) {
        return policies[policyId].owner != address(0);
    }
}
